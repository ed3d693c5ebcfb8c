#include "backends/cpu/dx_stores.h"

namespace bnscope::cpu {

Stores dx_stores(const HostCaches& caches, std::size_t tensor_bytes, int threads) {
  // Forced for every call: Measured takes the way the policy names.
  if (store_walks(false).forced()) return Stores::Measured;
  if (tensor_bytes > caches.llc_bytes()) return Stores::Streamed;
  if (tensor_bytes <= caches.llc_share_bytes(threads) / 2) return Stores::Cached;
  return Stores::Measured;
}

Walks& store_walks(bool training) {
  // The two ways measured 1.3-2.6x apart wherever either was clearly right, so the pairs and
  // tiles trials' 10% suffices.
  static Walks walks[] = {{"streamed", "cached", "BNSCOPE_STORES"},
                          {"streamed", "cached", "BNSCOPE_STORES"}};
  return walks[training ? 1 : 0];
}

bool output_streamed(const HostCaches& caches, std::size_t tensor_bytes) {
  return store_walks(false).forced().value_or(tensor_bytes > caches.llc_bytes() / 2);
}

WalkKey store_key(std::size_t tensor_bytes, std::int64_t channels, bool channels_first,
                  simd::Elem elem) {
  WalkKey key;
  key.channels_first = channels_first;
  key.lanes = channels;
  key.elem = elem;
  key.past_llc = false;
  key.bytes = static_cast<std::int64_t>(tensor_bytes);
  return key;
}

}  // namespace bnscope::cpu

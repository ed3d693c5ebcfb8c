// TEMPORARY placeholder until the reference backend lands.
#include "backends/cpu/cpu_backend.h"

#include "tensor/error.h"
namespace bnscope {
namespace {
class Placeholder : public Backend {
 public:
  std::string_view name() const override { return "cpu"; }
  std::string_view description() const override { return "fast"; }
  void run(const Prepared&, Result&, const RunContext&) override {
    throw Error(ErrorCode::Unimplemented, "cpu not implemented yet");
  }
};
}  // namespace
std::unique_ptr<Backend> make_cpu_backend() {
  return std::make_unique<Placeholder>();
}
}  // namespace bnscope

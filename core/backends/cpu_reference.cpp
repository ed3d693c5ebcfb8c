// TEMPORARY placeholder until the reference backend lands.
#include "backends/cpu_reference.h"

#include "tensor/error.h"
namespace bnscope {
namespace {
class Placeholder : public Backend {
 public:
  std::string_view name() const override { return "cpu-reference"; }
  std::string_view description() const override { return "float64 oracle"; }
  void run(const Prepared&, Result&, const RunContext&) override {
    throw Error(ErrorCode::Unimplemented, "cpu-reference not implemented yet");
  }
};
}  // namespace
std::unique_ptr<Backend> make_cpu_reference_backend() {
  return std::make_unique<Placeholder>();
}
}  // namespace bnscope

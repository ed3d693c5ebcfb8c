#include "backends/backend.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu_reference.h"
#include "backends/frameworks/framework_backends.h"
#include "tensor/error.h"

namespace bnscope {

void RunContext::check_cancel() const {
  if (cancelled()) throw Error(ErrorCode::Cancelled, "run cancelled");
}

BackendRegistry& BackendRegistry::instance() {
  static BackendRegistry registry;
  return registry;
}

BackendRegistry::BackendRegistry() {
  backends_.push_back(make_cpu_reference_backend());
  backends_.push_back(make_cpu_backend());
  for (auto& b : make_framework_backends()) backends_.push_back(std::move(b));
}

void BackendRegistry::add(std::unique_ptr<Backend> backend) {
  for (auto& b : backends_)
    if (b->name() == backend->name()) {
      b = std::move(backend);
      return;
    }
  backends_.push_back(std::move(backend));
}

Backend* BackendRegistry::find(std::string_view name) const {
  for (const auto& b : backends_)
    if (b->name() == name) return b.get();
  return nullptr;
}

std::vector<Backend*> BackendRegistry::all() const {
  std::vector<Backend*> out;
  for (const auto& b : backends_) out.push_back(b.get());
  return out;
}

void BackendRegistry::check_environment() const {
  for (const auto& b : backends_) b->check_environment();
}

const PhaseInfo* find_phase(const std::vector<PhaseInfo>& plan, std::string_view name) {
  for (const PhaseInfo& info : plan)
    if (info.name == name) return &info;
  return nullptr;
}

std::string BackendRegistry::names_joined(std::string_view sep) const {
  std::string s;
  for (const auto& b : backends_) s += (s.empty() ? "" : std::string(sep)) + std::string(b->name());
  return s;
}

namespace {

class UnavailableBackend : public Backend {
 public:
  UnavailableBackend(std::string name, std::string description, std::string reason)
      : name_(std::move(name)), description_(std::move(description)), reason_(std::move(reason)) {}
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return description_; }
  std::string unavailable_reason() const override { return reason_; }
  void run(const Prepared&, Result&, const RunContext&) override {
    throw Error(ErrorCode::Unavailable, "backend " + name_ + " is not available: " + reason_);
  }

 private:
  std::string name_, description_, reason_;
};

}  // namespace

std::unique_ptr<Backend> make_unavailable_backend(std::string name, std::string description,
                                                  std::string reason) {
  return std::make_unique<UnavailableBackend>(std::move(name), std::move(description),
                                              std::move(reason));
}

}  // namespace bnscope

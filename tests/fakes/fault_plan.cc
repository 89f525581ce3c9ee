// SPDX-License-Identifier: MIT
#include "fakes/fault_plan.h"

#include <algorithm>

namespace hipfile::testing {

void FaultPlan::FailNth(size_t op, uint64_t n, int code) {
  MutexLock lock(mu_);
  ops_.at(op).nth.push_back({ops_.at(op).calls + n, code});
}

void FaultPlan::FailAlways(size_t op, int code) {
  MutexLock lock(mu_);
  ops_.at(op).always = code;
}

void FaultPlan::FailTimes(size_t op, uint64_t count, int code) {
  MutexLock lock(mu_);
  ops_.at(op).times_left = count;
  ops_.at(op).times_code = code;
}

void FaultPlan::Reset() {
  MutexLock lock(mu_);
  for (Op& op : ops_) op = Op();
}

uint64_t FaultPlan::Calls(size_t op) const {
  MutexLock lock(mu_);
  return ops_.at(op).calls;
}

int FaultPlan::OnCall(size_t index) {
  MutexLock lock(mu_);
  Op& op = ops_.at(index);
  const uint64_t call = ++op.calls;
  int code = 0;
  const auto nth =
      std::find_if(op.nth.begin(), op.nth.end(), [call](const Nth& f) { return f.call == call; });
  if (nth != op.nth.end()) {
    code = nth->code;
    op.nth.erase(nth);
  }
  if (code == 0 && op.times_left > 0) {
    --op.times_left;
    code = op.times_code;
  }
  if (op.always != 0) code = op.always;
  return code;
}

}  // namespace hipfile::testing

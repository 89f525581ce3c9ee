// SPDX-License-Identifier: MIT
#include "core/buffer_registry.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core_test_util.h"

namespace hipfile::core {
namespace {

using testing::GpuOp;

TEST(RangeInsideTest, AcceptsInteriorRangesAndRejectsOverflow) {
  EXPECT_TRUE(RangeInside(1000, 100, 1000, 100));
  EXPECT_TRUE(RangeInside(1000, 100, 1050, 50));
  EXPECT_TRUE(RangeInside(1000, 100, 1100, 0));
  EXPECT_FALSE(RangeInside(1000, 100, 1050, 51));
  EXPECT_FALSE(RangeInside(1000, 100, 999, 1));
  EXPECT_FALSE(RangeInside(1000, 100, 1101, 0));
  EXPECT_FALSE(RangeInside(1000, 100, 1000, SIZE_MAX));
  EXPECT_FALSE(RangeInside(1000, 100, 1050, SIZE_MAX - 10));
}

class DescribeTest : public CoreTest {};

TEST_F(DescribeTest, DeviceMemoryWithInteriorPointers) {
  char* p = static_cast<char*>(DeviceAlloc(1 << 16));
  Result<Buffer> whole = DescribeForRegistration(gpu_, p, 1 << 16, 7);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->base, p);
  EXPECT_EQ(whole->length, 1u << 16);
  EXPECT_EQ(whole->flags, 7);
  EXPECT_EQ(whole->type, hipMemoryTypeDevice);
  EXPECT_EQ(whole->device, 0);
  EXPECT_TRUE(DescribeForRegistration(gpu_, p + 4096, (1 << 16) - 4096, 0).ok());
  EXPECT_EQ(DescribeForRegistration(gpu_, p + 4096, (1 << 16) - 4095, 0).status(),
            Status::Op(hipFileHipPointerRangeError));
  EXPECT_EQ(DescribeForRegistration(gpu_, p, SIZE_MAX, 0).status(),
            Status::Op(hipFileHipPointerRangeError));
}

TEST_F(DescribeTest, PinnedHostMemoryIsAccepted) {
  void* p = HostAlloc(8192);
  Result<Buffer> buffer = DescribeForRegistration(gpu_, p, 8192, 0);
  ASSERT_TRUE(buffer.ok());
  EXPECT_EQ(buffer->type, hipMemoryTypeHost);
}

// Managed memory is I/O'd as device memory, registered or not.
TEST_F(DescribeTest, ManagedMemoryIsDescribedAsDeviceMemory) {
  char* p = static_cast<char*>(ManagedAlloc(1 << 16));
  Result<Buffer> registered = DescribeForRegistration(gpu_, p + 4096, 4096, 0);
  ASSERT_TRUE(registered.ok());
  EXPECT_EQ(registered->type, hipMemoryTypeDevice);
  EXPECT_EQ(registered->device, 0);
  EXPECT_EQ(DescribeForRegistration(gpu_, p, (1 << 16) + 1, 0).status(),
            Status::Op(hipFileHipPointerRangeError));
  Result<Buffer> unregistered = DescribeUnregistered(gpu_, p + 100);
  ASSERT_TRUE(unregistered.ok());
  EXPECT_EQ(unregistered->type, hipMemoryTypeDevice);
  EXPECT_EQ(unregistered->length, (1u << 16) - 100);
}

TEST_F(DescribeTest, RegistrationErrors) {
  std::vector<char> pageable(4096);
  EXPECT_EQ(DescribeForRegistration(gpu_, nullptr, 10, 0).status(),
            Status::Op(hipFileInvalidValue));
  void* p = DeviceAlloc(4096);
  EXPECT_EQ(DescribeForRegistration(gpu_, p, 0, 0).status(), Status::Op(hipFileInvalidValue));
  EXPECT_EQ(DescribeForRegistration(gpu_, pageable.data(), 4096, 0).status(),
            Status::Op(hipFileHipMemoryTypeInvalid));
  gpu_.FailNth(GpuOp::kPointerGetInfo, 1, hipErrorInvalidValue);
  EXPECT_EQ(DescribeForRegistration(gpu_, p, 4096, 0).status(), Status::Op(hipFileInvalidValue));
  gpu_.FailNth(GpuOp::kPointerGetInfo, 1, hipErrorNotFound);
  EXPECT_EQ(DescribeForRegistration(gpu_, p, 4096, 0).status(), Status::Op(hipFileInvalidValue));
  gpu_.FailNth(GpuOp::kPointerGetInfo, 1, hipErrorIllegalAddress);
  EXPECT_EQ(DescribeForRegistration(gpu_, p, 4096, 0).status(),
            Status::Gpu(hipErrorIllegalAddress));
}

TEST_F(DescribeTest, UnregisteredDeviceMemoryReachesTheEndOfItsAllocation) {
  char* p = static_cast<char*>(DeviceAlloc(1 << 16));
  Result<Buffer> buffer = DescribeUnregistered(gpu_, p + 100);
  ASSERT_TRUE(buffer.ok());
  EXPECT_EQ(buffer->base, p + 100);
  EXPECT_EQ(buffer->length, (1u << 16) - 100);
  EXPECT_EQ(buffer->type, hipMemoryTypeDevice);
}

// The bug: pinned host memory that was not registered was refused with hipFileInvalidValue;
// upstream's newest tree (and cuFile) serve it, reaching to the end of the pinned range.
TEST_F(DescribeTest, UnregisteredPinnedHostMemoryWasRefused) {
  char* pinned = static_cast<char*>(HostAlloc(1 << 16));
  Result<Buffer> buffer = DescribeUnregistered(gpu_, pinned + 100);
  ASSERT_TRUE(buffer.ok()) << buffer.status().ToString();
  EXPECT_EQ(buffer->base, pinned + 100);
  EXPECT_EQ(buffer->length, (1u << 16) - 100);
  EXPECT_EQ(buffer->type, hipMemoryTypeHost);

  std::vector<char> registered(3 * 4096);
  ASSERT_EQ(gpu_.HostRegister(registered.data() + 4096, 4096, 0), hipSuccess);
  buffer = DescribeUnregistered(gpu_, registered.data() + 4096 + 10);
  ASSERT_TRUE(buffer.ok()) << buffer.status().ToString();
  EXPECT_EQ(buffer->length, 4096u - 10) << "the registered range, not the vector";
  EXPECT_EQ(buffer->type, hipMemoryTypeHost);
  ASSERT_EQ(gpu_.HostUnregister(registered.data() + 4096), hipSuccess);
  EXPECT_EQ(DescribeUnregistered(gpu_, registered.data() + 4096 + 10).status(),
            Status::Op(hipFileHipMemoryTypeInvalid))
      << "pageable again once unregistered";
}

TEST_F(DescribeTest, PageableAndUnknownMemoryIsRefused) {
  std::vector<char> pageable(4096);
  EXPECT_EQ(DescribeUnregistered(gpu_, pageable.data()).status(),
            Status::Op(hipFileHipMemoryTypeInvalid));
  EXPECT_EQ(DescribeUnregistered(gpu_, nullptr).status(), Status::Op(hipFileInvalidValue));
  gpu_.FailNth(GpuOp::kPointerGetInfo, 1, hipErrorIllegalAddress);
  EXPECT_EQ(DescribeUnregistered(gpu_, pageable.data()).status(),
            Status::Gpu(hipErrorIllegalAddress));
}

// A runtime that knows a pointer is pinned but not where its range ends.
class NoExtentRuntime : public testing::FaultRuntime {
 public:
  using FaultRuntime::FaultRuntime;
  hipError_t PointerGetInfo(const void* ptr, runtime::PointerInfo* info) override {
    const hipError_t e = FaultRuntime::PointerGetInfo(ptr, info);
    if (e == hipSuccess) {
      info->base = nullptr;
      info->size = 0;
    }
    return e;
  }
};

TEST_F(DescribeTest, PinnedHostMemoryOfUnknownExtentMustBeRegistered) {
  NoExtentRuntime gpu(*cpu_);
  EXPECT_EQ(DescribeUnregistered(gpu, HostAlloc(4096)).status(), Status::Op(hipFileInvalidValue));
}

TEST(BufferRegistryTest, InsertFindRemove) {
  BufferRegistry registry;
  char storage[64];
  auto buffer = std::make_shared<Buffer>();
  buffer->base = storage;
  buffer->length = sizeof storage;
  ASSERT_TRUE(registry.Insert(buffer).ok());
  auto same_base = std::make_shared<Buffer>(*buffer);
  same_base->length = 8;
  EXPECT_EQ(registry.Insert(same_base), Status::Op(hipFileMemoryAlreadyRegistered));
  EXPECT_EQ(registry.Find(storage), buffer);
  EXPECT_EQ(registry.Find(storage + 1), nullptr);  // exact base only
  // Held by an operation: not removed.
  EXPECT_EQ(registry.Remove(storage), Status::Op(hipFileInternalError));
  buffer.reset();
  EXPECT_TRUE(registry.Remove(storage).ok());
  EXPECT_EQ(registry.Remove(storage), Status::Op(hipFileMemoryNotRegistered));
}

}  // namespace
}  // namespace hipfile::core

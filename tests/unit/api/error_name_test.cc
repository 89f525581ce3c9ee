// SPDX-License-Identifier: MIT
// hipFileExtOpErrorName: the enumerator's name for every code, so tools print names, not numbers.
#include <gtest/gtest.h>
#include <hipfile.h>
#include <hipfile_ext.h>

#include <string>

namespace {

TEST(OpErrorNameTest, NamesTheEnumerator) {
  EXPECT_STREQ(hipFileExtOpErrorName(hipFileSuccess), "hipFileSuccess");
  EXPECT_STREQ(hipFileExtOpErrorName(hipFileHandleNotRegistered), "hipFileHandleNotRegistered");
  EXPECT_STREQ(hipFileExtOpErrorName(hipFileInvalidValue), "hipFileInvalidValue");
  EXPECT_STREQ(hipFileExtOpErrorName(hipFileDriverError), "hipFileDriverError");
}

TEST(OpErrorNameTest, AValueOutsideTheEnumIsUnknownNotNull) {
  for (int v : {-1, 1, 4999, 1 << 30}) {
    const char* name = hipFileExtOpErrorName(v);
    ASSERT_NE(name, nullptr) << v;
    EXPECT_STREQ(name, "hipFileUnknownError") << v;
  }
}

}  // namespace

// SPDX-License-Identifier: MIT
#include "platform/env.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace hipfile::platform {
namespace {

TEST(ParseBoolTest, AcceptsTheDocumentedSpellingsInAnyCase) {
  for (const char* yes : {"true", "TRUE", "True", "1", "yes", "YES", "on", "On"}) {
    EXPECT_EQ(ParseBool(yes), std::optional<bool>(true)) << yes;
  }
  for (const char* no : {"false", "FALSE", "False", "0", "no", "No", "off", "OFF"}) {
    EXPECT_EQ(ParseBool(no), std::optional<bool>(false)) << no;
  }
}

TEST(ParseBoolTest, RejectsEverythingElse) {
  for (const char* bad : {"", " true", "true ", "2", "tru", "enabled", "-1", "y"}) {
    EXPECT_EQ(ParseBool(bad), std::nullopt) << '"' << bad << '"';
  }
}

TEST(ParseUnsignedTest, ParsesWholeDecimalStrings) {
  EXPECT_EQ(ParseUnsigned("0"), std::optional<uint64_t>(0));
  EXPECT_EQ(ParseUnsigned("2"), std::optional<uint64_t>(2));
  EXPECT_EQ(ParseUnsigned("007"), std::optional<uint64_t>(7));
  EXPECT_EQ(ParseUnsigned("18446744073709551615"), std::optional<uint64_t>(UINT64_MAX));
}

TEST(ParseUnsignedTest, OverflowGivesTheMaximum) {
  EXPECT_EQ(ParseUnsigned("18446744073709551616"), std::optional<uint64_t>(UINT64_MAX));
  EXPECT_EQ(ParseUnsigned("99999999999999999999999999"), std::optional<uint64_t>(UINT64_MAX));
}

TEST(ParseUnsignedTest, RejectsSignsSpacesAndGarbage) {
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "1x", "0x10", "1.5"}) {
    EXPECT_EQ(ParseUnsigned(bad), std::nullopt) << '"' << bad << '"';
  }
  EXPECT_EQ(ParseUnsigned("99999999999999999999x"), std::nullopt);
}

}  // namespace
}  // namespace hipfile::platform

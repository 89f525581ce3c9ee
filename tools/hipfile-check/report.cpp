// SPDX-License-Identifier: MIT
#include "report.h"

namespace hipfile_check {

const char* TriName(Tri t) {
  switch (t) {
    case Tri::kYes:
      return "yes";
    case Tri::kNo:
      return "no";
    case Tri::kUnknown:
      return "unknown";
  }
  return "unknown";
}

std::vector<std::string> FeatureNames(unsigned features) {
  std::vector<std::string> names;
  for (unsigned bit = 1; bit != 0 && bit <= HIPFILE_EXT_FEATURE_ALL; bit <<= 1) {
    if ((features & bit) != 0) names.push_back(hipFileExtBuildFeatureName(bit));
  }
  return names;
}

std::string FeaturesText(unsigned features) {
  std::string text;
  for (unsigned bit = 1; bit != 0 && bit <= HIPFILE_EXT_FEATURE_ALL; bit <<= 1) {
    if (!text.empty()) text += ", ";
    text += std::string((features & bit) != 0 ? "" : "no ") + hipFileExtBuildFeatureName(bit);
  }
  return text + " (hipFileExtBuildFeatures)";
}

bool CanDoIo(const Report& r) {
  if (!r.platform.driver_opened) return false;
  if (r.paths.empty()) return !r.paths_given;
  bool all = true, any = false;
  for (const PathReport& p : r.paths) {
    all = all && p.usable;
    any = any || p.usable;
  }
  return r.paths_given ? all : any;
}

}  // namespace hipfile_check

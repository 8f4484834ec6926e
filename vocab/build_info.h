// build_info.h — facts about this build, generated at build time
// (cmake/build_info.cmake writes build_info.cpp): version, git commit,
// compiler, flags and build type. Sanitizers are detected here at compile
// time because their presence makes every timing unrepresentative.
#pragma once

#include <string>

namespace moebench::build_info {

extern const char* const kVersion;
extern const char* const kGitCommit;
extern const char* const kCompiler;
extern const char* const kCompilerFlags;
extern const char* const kBuildType;

inline std::string sanitizers() {
  std::string s;
#if defined(__SANITIZE_ADDRESS__)
  s += "address";
#endif
#if defined(__SANITIZE_THREAD__)
  s += s.empty() ? "thread" : ",thread";
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) && !defined(__SANITIZE_ADDRESS__)
  s += s.empty() ? "address" : ",address";
#endif
#if __has_feature(undefined_behavior_sanitizer)
  s += s.empty() ? "undefined" : ",undefined";
#endif
#endif
  return s;
}

}  // namespace moebench::build_info

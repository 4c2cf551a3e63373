#pragma once
namespace cordon {
inline constexpr const char* kCordonVersion = "0.1.0";
}  // namespace cordon

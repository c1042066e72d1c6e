// File: tools/sweep/json_pointer_set.hpp
// Setting a value at an RFC 6901 JSON pointer of a document the way a sweep means it: the
// pointer's parent must already exist; an object gets the key added or replaced, an array has
// an existing element replaced (a sweep varies a scenario, it never grows its lists).
// Internal to tools/sweep: only its .cpp files include it.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace railsim::tools::sweep {

// The unescaped reference tokens of `pointer` ("/a~1b/0" -> {"a/b", "0"}), or, when it is not a
// pointer that can be set, the reason in `problem` (the root "" cannot be set).
std::vector<std::string> pointer_tokens(const std::string& pointer, std::string& problem);

// Why `value` cannot be set at `pointer` in `document`, or "" when it can. The reason names the
// part of the document at fault: `no "fabrik" in /system (did you mean "fabric"?)`.
std::string set_problem(const nlohmann::ordered_json& document, const std::string& pointer);

// Sets `value` at `pointer`; returns set_problem() and leaves `document` unchanged when that
// is not "".
std::string set_at_pointer(nlohmann::ordered_json& document,
                           const std::string& pointer,
                           nlohmann::ordered_json value);

}  // namespace railsim::tools::sweep

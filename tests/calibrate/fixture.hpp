// File: tests/calibrate/fixture.hpp
// The real tool outputs of tests/data and their hand-transcribed JSON, and a check that a parse
// fails with a ParseError at a given line whose message matches a pattern.
#pragma once

#include "calibrate/parse/text_input.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <string>

namespace railsim::calibrate::test {

// tests/data/<stem>.txt
parse::TextInput fixture_text(const std::string& stem);

// tests/data/<stem>.json: the rows and settings transcribed by hand from <stem>.txt.
nlohmann::json fixture_json(const std::string& stem);

// Runs `parse`; passes when it throws a ParseError naming `file` and `line` whose message
// contains `fragment`.
::testing::AssertionResult fails_at(const std::function<void()>& parse,
                                    const std::string& file,
                                    int line,
                                    const std::string& fragment);

}  // namespace railsim::calibrate::test

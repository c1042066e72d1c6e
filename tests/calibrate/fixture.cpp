// File: tests/calibrate/fixture.cpp
#include "tests/calibrate/fixture.hpp"

#include <fstream>

namespace railsim::calibrate::test {

parse::TextInput fixture_text(const std::string& stem) {
  return parse::TextInput::from_file(std::string(RAILSIM_TEST_DATA_DIR) + "/" + stem + ".txt");
}

nlohmann::json fixture_json(const std::string& stem) {
  std::ifstream in(std::string(RAILSIM_TEST_DATA_DIR) + "/" + stem + ".json");
  return nlohmann::json::parse(in);
}

::testing::AssertionResult fails_at(const std::function<void()>& parse,
                                    const std::string& file,
                                    int line,
                                    const std::string& fragment) {
  try {
    parse();
  } catch (const parse::ParseError& error) {
    const std::string what = error.what();
    const std::string place = line > 0 ? file + ":" + std::to_string(line) + ": " : file + ": ";
    if (error.file() != file || error.line() != line || what.rfind(place, 0) != 0 ||
        what.find(fragment) == std::string::npos) {
      return ::testing::AssertionFailure() << "expected an error at " << place << "containing '"
                                           << fragment << "', got: " << what;
    }
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "expected a ParseError, the input parsed";
}

}  // namespace railsim::calibrate::test

// File: tests/tools/progress_bar_test.cpp
// The progress line's text, and that the bar draws only when given a stream.
#include "tools/progress_bar.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sstream>

namespace railsim::tools {
namespace {

TEST(ProgressBar, LineShowsCountRateAndEta) {
  // 37 of 120 in 12 s: 3.08 pt/s, 83 left: 26.9 s.
  EXPECT_EQ(progress_line(37, 120, 12.0),
            "[========>                     ] 37/120  3.1 pt/s  ETA 27s");
  EXPECT_EQ(progress_line(0, 10, 0.0), "[                              ] 0/10  0.0 pt/s  ETA ?");
  // 10 of 1000 in 10 s: 990 s left, 16 min 30 s.
  EXPECT_EQ(progress_line(10, 1000, 10.0).substr(32), " 10/1000  1.0 pt/s  ETA 16m30s");
  EXPECT_EQ(progress_line(4, 4, 2.0), "[==============================] 4/4  2.0 pt/s  ETA 0s");
}

TEST(ProgressBar, FinishEndsTheLineAndSilentBarWritesNothing) {
  std::ostringstream out;
  ProgressBar bar(2, &out, "pt", std::chrono::milliseconds(0));
  bar.advance();
  bar.advance();
  bar.finish();
  EXPECT_EQ(out.str().substr(0, 1), "\r");
  EXPECT_NE(out.str().find("] 2/2 "), std::string::npos);
  EXPECT_EQ(out.str().back(), '\n');
  ProgressBar silent(2, nullptr);
  silent.advance();
  silent.finish();
  EXPECT_EQ(silent.done(), 1U);
}

TEST(ProgressBar, WorkThatEndsBeforeTheBarShowsDrawsNothing) {
  std::ostringstream out;
  ProgressBar bar(3, &out, "size", std::chrono::seconds(60));
  bar.advance();
  bar.finish();
  EXPECT_EQ(out.str(), "");
  EXPECT_EQ(progress_line(1, 4, 2.0, "size").substr(32), " 1/4  0.5 size/s  ETA 6s");
}

TEST(StatusLine, RedrawsInPlaceBlankingWhatALongerLineLeft) {
  std::ostringstream out;
  StatusLine line(&out, std::chrono::milliseconds(0));
  line.update([](double) { return std::string("fitting: 12 evaluations"); });
  line.finish([](double elapsed_s) { return fmt::format("done {}", duration_text(elapsed_s)); });
  // The second draw is padded to the first's 23 characters, then the line ends.
  EXPECT_EQ(out.str(), "\rfitting: 12 evaluations\rdone 0s" + std::string(16, ' ') + "\n");
  EXPECT_EQ(duration_text(185.0), "3m05s");
  EXPECT_EQ(duration_text(3720.0), "1h02m");
}

}  // namespace
}  // namespace railsim::tools

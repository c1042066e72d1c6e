// File: tools/report/xml_escape.hpp
// xml_escape: the one escaping function of the report writer, used for every piece of text that
// goes into an SVG figure or the HTML page (titles, labels, captions, table cells, attributes).
#pragma once

#include <string>
#include <string_view>

namespace railsim::tools::report {

// Replaces & < > " ' by their entities, so the result is safe both as element text and inside a
// quoted attribute. Control characters that XML 1.0 forbids (below U+0020 except tab, newline
// and carriage return) become U+FFFD, and so does each byte that is not UTF-8 (a log's Latin-1
// host name), so the document stays well-formed whatever the input.
[[nodiscard]] std::string xml_escape(std::string_view text);

}  // namespace railsim::tools::report

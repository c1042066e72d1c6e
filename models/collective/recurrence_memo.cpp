// File: models/collective/recurrence_memo.cpp
// The memo's digest and its guarded table (see the header).
#include "models/collective/recurrence_memo.hpp"

#include <boost/uuid/detail/md5.hpp>

#include <cstring>

namespace railsim::models {

RecurrenceMemo::Digest RecurrenceMemo::digest(std::span<const std::uint64_t> inputs) {
  boost::uuids::detail::md5 md5;
  md5.process_bytes(inputs.data(), inputs.size_bytes());
  boost::uuids::detail::md5::digest_type words;
  md5.get_digest(words);
  Digest key;
  static_assert(sizeof(words) == sizeof(key), "MD5 gives 128 bits");
  std::memcpy(key.data(), &words[0], sizeof(key));
  return key;
}

std::optional<double> RecurrenceMemo::find(const Digest& key) const {
  const std::lock_guard lock(mutex_);
  const auto it = answers_.find(key);
  return it == answers_.end() ? std::nullopt : std::optional(it->second);
}

void RecurrenceMemo::keep(const Digest& key, double value) {
  const std::lock_guard lock(mutex_);
  if (answers_.size() >= kMaxAnswers) {
    answers_.clear();
  }
  answers_.emplace(key, value);
}

std::size_t RecurrenceMemo::size() const {
  const std::lock_guard lock(mutex_);
  return answers_.size();
}

}  // namespace railsim::models

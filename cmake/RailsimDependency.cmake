# railsim_require(<package> <debian-package> [find_package args...])
# find_package(... REQUIRED) with a message that names the Debian package to install, because a
# fresh machine lacks most of them until tools/setup.sh has run.
macro(railsim_require package debian_package)
  find_package(${package} ${ARGN} QUIET)
  if(NOT ${package}_FOUND)
    message(FATAL_ERROR
      "railsim needs ${package}: install the Debian package '${debian_package}' "
      "(tools/setup.sh installs everything the project needs).")
  endif()
endmacro()

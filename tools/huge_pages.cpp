// File: tools/huge_pages.cpp
// Built into railsim and the benchmarks (railsim_heap in CMakeLists.txt; never into sanitized
// builds, whose allocator is the sanitizer's): their heap is jemalloc's, on 2 MiB pages where the
// kernel gives them. A simulation of a large fabric walks hundreds of megabytes of links,
// crossings and paths in no cache-friendly order, so on 4 KiB pages many of its memory accesses
// also miss the TLB, and under a hypervisor each miss walks two page tables
// (docs/performance.md, "Huge pages").

// jemalloc's options, read from this global as it starts, before main() (MALLOC_CONF in the
// environment still overrides them): every mapping it makes for data and for its own metadata
// madvised MADV_HUGEPAGE, so that transparent huge pages back it where the kernel gives them only
// on request (/sys/kernel/mm/transparent_hugepage/enabled: madvise, Debian's default).
// NOLINTNEXTLINE(readability-identifier-naming): the name jemalloc looks for.
extern "C" const char* const malloc_conf = "thp:always,metadata_thp:always";

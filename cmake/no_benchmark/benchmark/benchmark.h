// A stand-in for Google Benchmark's header, first on the include path of the layers that must not
// see it (analysis/, report/, compare/: harness/CMakeLists.txt). Reaching it means one of their
// files includes benchmark/benchmark.h, directly or through a header such as workload.hpp or
// runner.hpp; include run_options.hpp, run_results.hpp or workload_facts.hpp instead.
#error "this layer must not include benchmark/benchmark.h (docs/architecture.md, 'Layers')"

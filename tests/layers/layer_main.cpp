// The main() of a layer check (tests/layers/CMakeLists.txt): the program is a layer's objects and
// those of the layers below it, linked alone. It never runs; that it links is the check.
int main() {
  return 0;
}

// A main for the fuzz targets built with the regular compiler: it runs LLVMFuzzerTestOneInput
// once on every file of the directories (or the files) given, the way `target -runs=0 corpus`
// does under libFuzzer, so that ctest replays the committed corpora (every seed and every past
// crash) in the ordinary build, without clang or the sanitizers. A crash or a broken invariant
// aborts the process, and ctest reports the test as failed; the input being run is printed
// first, so the failing file is named.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

// The regular files of path, sorted (path itself when it is a file).
std::vector<std::string> InputsOf(const std::string& path) {
  struct stat st{};
  if (stat(path.c_str(), &st) != 0) return {};
  if (!S_ISDIR(st.st_mode)) return {path};
  std::vector<std::string> files;
  if (DIR* dir = opendir(path.c_str())) {
    while (dirent* entry = readdir(dir)) {
      std::string name = entry->d_name;
      if (name == "." || name == "..") continue;
      struct stat fst{};
      std::string full = path + "/" + name;
      if (stat(full.c_str(), &fst) == 0 && S_ISREG(fst.st_mode)) files.push_back(full);
    }
    closedir(dir);
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
    return 2;
  }
  size_t runs = 0;
  for (int i = 1; i < argc; ++i) {
    std::vector<std::string> inputs = InputsOf(argv[i]);
    if (inputs.empty()) {
      std::fprintf(stderr, "%s: no inputs in %s\n", argv[0], argv[i]);
      return 2;
    }
    for (const std::string& file : inputs) {
      std::ifstream in(file, std::ios::binary);
      std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                 std::istreambuf_iterator<char>());
      std::fprintf(stderr, "running %s (%zu bytes)\n", file.c_str(), bytes.size());
      // An empty input still gets a valid pointer, as libFuzzer gives one.
      uint8_t empty = 0;
      LLVMFuzzerTestOneInput(bytes.empty() ? &empty : bytes.data(), bytes.size());
      ++runs;
    }
  }
  std::printf("replayed %zu inputs\n", runs);
  return 0;
}

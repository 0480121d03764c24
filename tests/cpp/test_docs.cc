// Code in docs/ is cut from compiled examples, never typed by hand. A page marks each such block
// with a line `<!-- cut: <path> <name> -->` followed at once by a fenced block; the block must
// equal the lines strictly between `// [<name>.begin]` and `// [<name>.end]` of <path> (relative
// to the source root; `# [<name>.begin]` in a Python example). The examples are built and run, so a
// page that still matches them shows code that compiles and does what the page says.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

/*! \brief One `<!-- cut: path name -->` comment of a page and the fenced block after it. */
struct CutBlock {
  int line = 0;  // 1-based line of the comment, for messages
  std::string path;
  std::string name;
  std::string text;   // the fenced block's content, lines joined with '\n'
  std::string error;  // why the comment or its block is malformed; empty when well formed
};

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // a CRLF checkout reads the same
    lines.push_back(line);
  }
  return lines;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

std::string JoinLines(const std::vector<std::string>& lines, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end; ++i) {
    out += lines[i];
    out += '\n';
  }
  return out;
}

/*! \return the number of backticks a line is made of, or 0 when it holds anything else. */
size_t FenceOnly(const std::string& line) {
  std::string t = Trim(line);
  if (t.size() < 3 || t.find_first_not_of('`') != std::string::npos) return 0;
  return t.size();
}

/*!
 * \brief Every cut comment of a page. A line starting `<!-- cut:` that does not parse, or is not
 *  followed at once by a closed fenced block, yields a block with error set rather than being
 *  skipped: a typo must not turn a checked block into an unchecked one.
 */
std::vector<CutBlock> ParseCutBlocks(const std::string& markdown) {
  std::vector<CutBlock> blocks;
  std::vector<std::string> lines = SplitLines(markdown);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string t = Trim(lines[i]);
    if (t.rfind("<!-- cut:", 0) != 0) continue;
    CutBlock block;
    block.line = static_cast<int>(i) + 1;
    blocks.push_back(block);
    CutBlock& b = blocks.back();

    std::istringstream words(t.substr(std::string("<!-- cut:").size()));
    std::string close, extra;
    if (!(words >> b.path >> b.name >> close) || close != "-->" || (words >> extra)) {
      b.error = "expected `<!-- cut: <path> <name> -->`, got `" + t + "`";
      continue;
    }
    // The fence opens on the very next line, so no prose can sit between comment and code.
    if (i + 1 >= lines.size() || Trim(lines[i + 1]).rfind("```", 0) != 0) {
      b.error = "the cut comment is not followed at once by a fenced block";
      continue;
    }
    std::string open = Trim(lines[i + 1]);
    size_t ticks = open.find_first_not_of('`');
    if (ticks == std::string::npos) ticks = open.size();
    size_t end = i + 2;
    while (end < lines.size() && FenceOnly(lines[end]) < ticks) ++end;
    if (end >= lines.size()) {
      b.error = "the fenced block after the cut comment is never closed";
      continue;
    }
    b.text = JoinLines(lines, i + 2, end);
    i = end;
  }
  return blocks;
}

/*!
 * \brief The lines strictly between `// [name.begin]` and `// [name.end]` of source.
 * \return false with error set when a marker is missing, repeated, or out of order.
 * \note A marker is matched on its whole (trimmed) line, so `// [call.begin]` never matches
 *  inside `// [recall.begin]`, and indentation inside a function body is allowed.
 */
bool ExtractRegion(const std::string& source, const std::string& name, std::string* region,
                   std::string* error) {
  const std::string begin_marker = "// [" + name + ".begin]";
  const std::string end_marker = "// [" + name + ".end]";
  std::vector<std::string> lines = SplitLines(source);
  std::vector<size_t> begins, ends;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string t = Trim(lines[i]);
    if (t.rfind("# [", 0) == 0) t = "// [" + t.substr(3);  // the same marker in Python
    if (t == begin_marker) begins.push_back(i);
    if (t == end_marker) ends.push_back(i);
  }
  if (begins.size() != 1 || ends.size() != 1) {
    *error = "expected one `" + begin_marker + "` and one `" + end_marker + "`, found " +
             std::to_string(begins.size()) + " and " + std::to_string(ends.size());
    return false;
  }
  if (ends[0] < begins[0]) {
    *error = "`" + end_marker + "` comes before `" + begin_marker + "`";
    return false;
  }
  *region = JoinLines(lines, begins[0] + 1, ends[0]);
  return true;
}

bool ReadFile(const fs::path& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

std::vector<fs::path> MarkdownFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".md") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());  // stable failure output across file systems
  return files;
}

const char kExampleSource[] =
    "int main() {\n"
    "  // [call.begin]\n"
    "  int x = 1;\n"
    "  return x;\n"
    "  // [call.end]\n"
    "}\n";

}  // namespace

TEST(Docs, CodeBlocksMatchExamples) {
  const fs::path root = MXFFI_SOURCE_DIR;
  ASSERT_TRUE(fs::is_directory(root / "docs")) << root / "docs";
  int num_blocks = 0;
  for (const fs::path& md : MarkdownFiles(root / "docs")) {
    std::string markdown;
    ASSERT_TRUE(ReadFile(md, &markdown)) << "cannot read " << md;
    const std::string page = fs::relative(md, root).generic_string();
    for (const CutBlock& b : ParseCutBlocks(markdown)) {
      ++num_blocks;
      const std::string where =
          page + ":" + std::to_string(b.line) + " (block '" + b.name + "' of " + b.path + ")";
      if (!b.error.empty()) {
        ADD_FAILURE() << where << ": " << b.error;
        continue;
      }
      std::string source, region, error;
      if (!ReadFile(root / b.path, &source)) {
        ADD_FAILURE() << where << ": cannot read " << (root / b.path);
        continue;
      }
      if (!ExtractRegion(source, b.name, &region, &error)) {
        ADD_FAILURE() << where << ": " << error;
        continue;
      }
      EXPECT_EQ(b.text, region) << where
                                << ": the page's code differs from the example; copy the lines "
                                   "between the markers into the page";
    }
  }
  // The pages cut at least the register, call and error blocks of docs/examples/register_api.cc;
  // fewer means the comments stopped being recognised and the test above checked nothing.
  ASSERT_GE(num_blocks, 3) << "cut blocks found under " << root / "docs";
}

TEST(Docs, AlteredBlockIsDetected) {
  const std::string page =
      "Intro.\n"
      "<!-- cut: docs/examples/x.cc call -->\n"
      "```cpp\n"
      "  int x = 1;\n"
      "  return x;\n"
      "```\n"
      "More prose.\n";
  std::string region, error;
  ASSERT_TRUE(ExtractRegion(kExampleSource, "call", &region, &error)) << error;
  EXPECT_EQ(region, "  int x = 1;\n  return x;\n");

  std::vector<CutBlock> blocks = ParseCutBlocks(page);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].error, "");
  EXPECT_EQ(blocks[0].line, 2);
  EXPECT_EQ(blocks[0].path, "docs/examples/x.cc");
  EXPECT_EQ(blocks[0].name, "call");
  EXPECT_EQ(blocks[0].text, region);

  // One changed character, a dropped line, and changed indentation are each a mismatch.
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"int x = 1;", "int x = 2;"}, {"  return x;\n", ""}, {"  int x", "int x"}}) {
    std::string altered = page;
    altered.replace(altered.find(from), from.size(), to);
    std::vector<CutBlock> b = ParseCutBlocks(altered);
    ASSERT_EQ(b.size(), 1u);
    EXPECT_NE(b[0].text, region) << "altering '" << from << "' went unnoticed";
  }

  // A missing marker or a comment without its block is reported, not skipped.
  std::string no_end = kExampleSource;
  no_end.replace(no_end.find("  // [call.end]\n"), std::string("  // [call.end]\n").size(), "");
  EXPECT_FALSE(ExtractRegion(no_end, "call", &region, &error));
  EXPECT_NE(error.find("[call.end]"), std::string::npos) << error;
  EXPECT_FALSE(ExtractRegion(kExampleSource, "cal", &region, &error));

  std::vector<CutBlock> loose = ParseCutBlocks("<!-- cut: a.cc call -->\nprose\n```cpp\n```\n");
  ASSERT_EQ(loose.size(), 1u);
  EXPECT_NE(loose[0].error, "");
  std::vector<CutBlock> bad = ParseCutBlocks("<!-- cut: a.cc -->\n```cpp\n```\n");
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_NE(bad[0].error, "");
  std::vector<CutBlock> open = ParseCutBlocks("<!-- cut: a.cc call -->\n```cpp\nint x;\n");
  ASSERT_EQ(open.size(), 1u);
  EXPECT_NE(open[0].error, "");
}

// docs_links_test.cpp — the README and every page under docs/ link only to
// what exists in the repository: each relative link names a file or
// directory that is there, and each #anchor a heading of that page (GitHub's
// anchor spelling: lowercased, punctuation dropped, spaces to hyphens).
// Links inside code blocks are examples, not links, and are skipped. The
// README stays a short front door: at most 400 lines.
#include <catch2/catch.hpp>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The text outside ``` fences, line by line.
std::vector<std::string> prose_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  bool fence = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) {
      fence = !fence;
      continue;
    }
    if (!fence) out.push_back(line);
  }
  return out;
}

std::string anchor_of(const std::string& heading) {
  std::string a;
  for (char ch : heading) {
    const auto u = static_cast<unsigned char>(ch);
    if (std::isalnum(u)) {
      a += static_cast<char>(std::tolower(u));
    } else if (ch == ' ' || ch == '-') {
      a += '-';
    } else if (ch == '_') {
      a += '_';
    }  // punctuation, and bytes outside ASCII ("—", "×"), are dropped
  }
  return a;
}

std::set<std::string> anchors_of(const fs::path& page) {
  std::set<std::string> out;
  for (const std::string& line : prose_lines(read_all(page))) {
    std::size_t n = 0;
    while (n < line.size() && line[n] == '#') ++n;
    if (n >= 1 && n <= 6 && n < line.size() && line[n] == ' ') out.insert(anchor_of(line.substr(n + 1)));
  }
  return out;
}

std::vector<fs::path> pages() {
  const fs::path root = MOEBENCH_SOURCE_DIR;
  std::vector<fs::path> out = {root / "README.md"};
  for (const auto& e : fs::recursive_directory_iterator(root / "docs")) {
    if (e.is_regular_file() && e.path().extension() == ".md") out.push_back(e.path());
  }
  return out;
}

}  // namespace

TEST_CASE("every relative link of the README and docs/ resolves, anchors included", "[docs]") {
  const std::regex link(R"(\[[^\]]*\]\(([^)\s]+)\))");
  std::size_t checked = 0;
  for (const fs::path& page : pages()) {
    for (const std::string& line : prose_lines(read_all(page))) {
      for (auto it = std::sregex_iterator(line.begin(), line.end(), link); it != std::sregex_iterator(); ++it) {
        const std::string url = (*it)[1];
        if (url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0 || url.rfind("mailto:", 0) == 0) continue;
        const std::size_t hash = url.find('#');
        const std::string file = url.substr(0, hash);
        const fs::path target = file.empty() ? page : (page.parent_path() / file).lexically_normal();
        INFO(page.string() << ": " << url);
        ++checked;
        CHECK(fs::exists(target));
        if (hash != std::string::npos && target.extension() == ".md" && fs::exists(target)) {
          CHECK(anchors_of(target).count(url.substr(hash + 1)) == 1);
        }
      }
    }
  }
  CHECK(checked > 50);  // the walk saw the docs' links, not an empty tree
}

TEST_CASE("the README is a short front door", "[docs]") {
  const std::string readme = read_all(fs::path(MOEBENCH_SOURCE_DIR) / "README.md");
  std::size_t lines = 0;
  for (char ch : readme) lines += ch == '\n';
  CHECK(lines <= 400);
  // It starts with the two commands that do all the set-up.
  CHECK(readme.find("./make run") < readme.find("./make test"));
  CHECK(readme.find("./make test") < 400);
}

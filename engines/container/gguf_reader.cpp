// gguf_reader.cpp — see gguf.h. The header is read sequentially through a
// bounded cursor over either a file (pread in 1 MiB windows) or memory.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <set>

#include "engines/container/ggml_types.h"
#include "engines/container/gguf.h"

namespace moebench {

const char* to_string(GgufType t) {
  switch (t) {
    case GgufType::kU8: return "u8";
    case GgufType::kI8: return "i8";
    case GgufType::kU16: return "u16";
    case GgufType::kI16: return "i16";
    case GgufType::kU32: return "u32";
    case GgufType::kI32: return "i32";
    case GgufType::kF32: return "f32";
    case GgufType::kBool: return "bool";
    case GgufType::kString: return "string";
    case GgufType::kArray: return "array";
    case GgufType::kU64: return "u64";
    case GgufType::kI64: return "i64";
    case GgufType::kF64: return "f64";
  }
  return "?";
}

std::uint64_t GgufTensorInfo::elements() const {
  std::uint64_t n = 1;
  for (std::uint64_t d : ne) n *= d;
  return n;
}

const GgufKv* GgufFile::find(std::string_view key) const {
  for (const GgufKv& kv : kvs) {
    if (kv.key == key) return &kv;
  }
  return nullptr;
}

const GgufTensorInfo* GgufFile::tensor(std::string_view name) const {
  for (const GgufTensorInfo& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::optional<std::uint64_t> GgufFile::get_uint(std::string_view key) const {
  const GgufKv* kv = find(key);
  if (kv == nullptr || !(kv->value.is_number_unsigned() || kv->value.is_number_integer())) return std::nullopt;
  if (kv->value.is_number_integer() && kv->value.get<std::int64_t>() < 0) return std::nullopt;
  return kv->value.get<std::uint64_t>();
}

std::optional<std::string> GgufFile::get_string(std::string_view key) const {
  const GgufKv* kv = find(key);
  if (kv == nullptr || !kv->value.is_string()) return std::nullopt;
  return kv->value.get<std::string>();
}

namespace {

// Length of the valid UTF-8 sequence at p (n bytes left), or 0 when the byte
// does not start one (stray continuation, overlong form, surrogate, > U+10FFFF).
std::size_t utf8_length(const unsigned char* p, std::size_t n) {
  const unsigned char b = p[0];
  if (b < 0x80) return 1;
  std::size_t len = 0;
  std::uint32_t cp = 0;
  if ((b & 0xE0) == 0xC0) {
    len = 2;
    cp = b & 0x1Fu;
  } else if ((b & 0xF0) == 0xE0) {
    len = 3;
    cp = b & 0x0Fu;
  } else if ((b & 0xF8) == 0xF0) {
    len = 4;
    cp = b & 0x07u;
  } else {
    return 0;
  }
  if (len > n) return 0;
  for (std::size_t i = 1; i < len; ++i) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (p[i] & 0x3Fu);
  }
  static constexpr std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

}  // namespace

std::string gguf_printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t len = utf8_length(p + i, s.size() - i);
    if (len == 0 || p[i] < 0x20 || p[i] == 0x7F) {
      static const char* kHex = "0123456789ABCDEF";
      out += "\\x";
      out += kHex[p[i] >> 4];
      out += kHex[p[i] & 0xF];
      ++i;
      continue;
    }
    out.append(s.substr(i, len));
    i += len;
  }
  return out;
}

std::string gguf_value_text(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

namespace {

class Source {
 public:
  virtual ~Source() = default;
  virtual std::uint64_t size() const = 0;
  // Copies [off, off+n) into dst; false on an I/O error.
  virtual bool read(std::uint64_t off, void* dst, std::size_t n) = 0;
};

class MemorySource final : public Source {
 public:
  MemorySource(const std::uint8_t* d, std::size_t n) : data_(d), size_(n) {}
  std::uint64_t size() const override { return size_; }
  bool read(std::uint64_t off, void* dst, std::size_t n) override {
    std::memcpy(dst, data_ + off, n);
    return true;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
};

class FileSource final : public Source {
 public:
  FileSource(int fd, std::uint64_t size) : fd_(fd), size_(size), window_(kWindow) {}
  ~FileSource() override { ::close(fd_); }
  std::uint64_t size() const override { return size_; }
  bool read(std::uint64_t off, void* dst, std::size_t n) override {
    auto* out = static_cast<std::uint8_t*>(dst);
    while (n > 0) {
      if (off < win_start_ || off >= win_start_ + win_len_) {
        win_start_ = off;
        const ssize_t got = ::pread(fd_, window_.data(), kWindow, static_cast<off_t>(off));
        if (got <= 0) return false;
        win_len_ = static_cast<std::uint64_t>(got);
      }
      const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(n, win_start_ + win_len_ - off));
      std::memcpy(out, window_.data() + (off - win_start_), take);
      out += take;
      off += take;
      n -= take;
    }
    return true;
  }

 private:
  static constexpr std::size_t kWindow = 1 << 20;
  int fd_;
  std::uint64_t size_;
  std::vector<std::uint8_t> window_;
  std::uint64_t win_start_ = 0, win_len_ = 0;
};

class Cursor {
 public:
  Cursor(Source& src, std::string label, const GgufLimits& limits) : src_(src), label_(std::move(label)), limits_(limits) {}

  std::uint64_t pos() const { return pos_; }
  std::uint64_t remaining() const { return src_.size() - pos_; }
  void context(std::string what) { context_ = std::move(what); }

  Error fail(const std::string& msg) const {
    return make_error(label_ + ": at byte " + std::to_string(pos_) + (context_.empty() ? "" : " (" + context_ + ")") +
                      ": " + msg);
  }

  Status bytes(void* dst, std::uint64_t n) {
    if (n > remaining()) {
      return fail("the file ends after " + std::to_string(remaining()) + " more bytes, " + std::to_string(n) +
                  " needed (truncated file?)");
    }
    if (!src_.read(pos_, dst, static_cast<std::size_t>(n))) return fail(std::string("read error: ") + std::strerror(errno));
    pos_ += n;
    return Status::success();
  }

  template <typename T>
  Expected<T> scalar() {
    T v{};
    if (Status st = bytes(&v, sizeof v); !st) return st.error();
    return v;
  }

  Expected<std::string> string() {
    auto len = scalar<std::uint64_t>();
    if (!len) return len.error();
    if (*len > limits_.max_string_bytes) {
      return fail("string length " + std::to_string(*len) + " exceeds the limit of " +
                  std::to_string(limits_.max_string_bytes) + " bytes (corrupt or hostile header)");
    }
    if (*len > remaining()) {
      return fail("string length " + std::to_string(*len) + " runs past the end of the file (" +
                  std::to_string(remaining()) + " bytes left)");
    }
    std::string s(static_cast<std::size_t>(*len), '\0');
    if (Status st = bytes(s.data(), *len); !st) return st.error();
    return s;
  }

  Expected<Json> value(GgufType type, int depth, GgufType* array_type) {
    switch (type) {
      case GgufType::kU8: return num<std::uint8_t>();
      case GgufType::kI8: return num<std::int8_t>();
      case GgufType::kU16: return num<std::uint16_t>();
      case GgufType::kI16: return num<std::int16_t>();
      case GgufType::kU32: return num<std::uint32_t>();
      case GgufType::kI32: return num<std::int32_t>();
      case GgufType::kU64: return num<std::uint64_t>();
      case GgufType::kI64: return num<std::int64_t>();
      case GgufType::kF32: {
        auto v = scalar<float>();
        if (!v) return v.error();
        return Json(static_cast<double>(*v));
      }
      case GgufType::kF64: {
        auto v = scalar<double>();
        if (!v) return v.error();
        return Json(*v);
      }
      case GgufType::kBool: {
        auto v = scalar<std::uint8_t>();
        if (!v) return v.error();
        if (*v > 1) return fail("bool value " + std::to_string(*v) + " is neither 0 nor 1");
        return Json(*v == 1);
      }
      case GgufType::kString: {
        auto s = string();
        if (!s) return s.error();
        return Json(std::move(*s));
      }
      case GgufType::kArray: {
        if (depth >= limits_.max_array_depth) return fail("arrays nested deeper than " + std::to_string(limits_.max_array_depth));
        auto et = scalar<std::uint32_t>();
        if (!et) return et.error();
        if (*et > static_cast<std::uint32_t>(GgufType::kF64)) {
          return fail("unknown array element type " + std::to_string(*et));
        }
        const auto elem = static_cast<GgufType>(*et);
        if (array_type != nullptr) *array_type = elem;
        auto count = scalar<std::uint64_t>();
        if (!count) return count.error();
        const std::uint64_t min_bytes = min_size(elem);
        if (*count > limits_.max_array_elements || (min_bytes > 0 && *count > remaining() / min_bytes)) {
          return fail("array of " + std::to_string(*count) + " " + to_string(elem) +
                      " elements cannot fit in the file (corrupt or hostile header)");
        }
        Json arr = Json::array();
        for (std::uint64_t i = 0; i < *count; ++i) {
          auto v = value(elem, depth + 1, nullptr);
          if (!v) return v.error();
          arr.push_back(std::move(*v));
        }
        return arr;
      }
    }
    return fail("unknown value type " + std::to_string(static_cast<std::uint32_t>(type)));
  }

 private:
  template <typename T>
  Expected<Json> num() {
    auto v = scalar<T>();
    if (!v) return v.error();
    return Json(*v);
  }
  static std::uint64_t min_size(GgufType t) {
    switch (t) {
      case GgufType::kU8: case GgufType::kI8: case GgufType::kBool: return 1;
      case GgufType::kU16: case GgufType::kI16: return 2;
      case GgufType::kU32: case GgufType::kI32: case GgufType::kF32: return 4;
      case GgufType::kU64: case GgufType::kI64: case GgufType::kF64: case GgufType::kString: return 8;
      case GgufType::kArray: return 12;
    }
    return 1;
  }

  Source& src_;
  std::string label_;
  const GgufLimits& limits_;
  std::uint64_t pos_ = 0;
  std::string context_;
};

// The metadata entries: unique keys, known value types.
Status read_metadata(Cursor& c, std::uint64_t n_kvs, GgufFile& f) {
  std::set<std::string> keys;
  for (std::uint64_t i = 0; i < n_kvs; ++i) {
    c.context("metadata entry " + std::to_string(i));
    auto key = c.string();
    if (!key) return key.error();
    c.context("metadata \"" + gguf_printable(*key) + "\"");
    if (!keys.insert(*key).second) return c.fail("duplicate metadata key");
    auto type = c.scalar<std::uint32_t>();
    if (!type) return type.error();
    if (*type > static_cast<std::uint32_t>(GgufType::kF64)) return c.fail("unknown value type " + std::to_string(*type));
    GgufKv kv;
    kv.key = *key;
    kv.type = static_cast<GgufType>(*type);
    auto v = c.value(kv.type, 0, &kv.array_type);
    if (!v) return v.error();
    kv.value = std::move(*v);
    f.kvs.push_back(std::move(kv));
  }
  if (const GgufKv* a = f.find("general.alignment")) {
    c.context("metadata \"general.alignment\"");
    if (!a->value.is_number_unsigned() && !a->value.is_number_integer()) return c.fail("alignment is not an integer");
    const std::int64_t al = a->value.get<std::int64_t>();
    if (al <= 0 || (al & (al - 1)) != 0 || al > (1 << 30)) {
      return c.fail("general.alignment " + std::to_string(al) + " is not a power of two up to 1 GiB");
    }
    f.alignment = static_cast<std::uint64_t>(al);
  }
  return Status::success();
}

// One tensor's info: a name ggml allows and not seen before (`names`), 1 to
// 4 sane dimensions, a known type whose blocks divide the row, its data
// offset.
Expected<GgufTensorInfo> read_tensor_info(Cursor& c, std::set<std::string>& names) {
  GgufTensorInfo t;
  auto name = c.string();
  if (!name) return name.error();
  t.name = *name;
  c.context("tensor \"" + gguf_printable(t.name) + "\"");
  if (t.name.empty() || t.name.size() >= 64) {
    return c.fail("tensor name length " + std::to_string(t.name.size()) + " is outside 1..63 (ggml's limit)");
  }
  if (!names.insert(t.name).second) return c.fail("duplicate tensor name");
  auto n_dims = c.scalar<std::uint32_t>();
  if (!n_dims) return n_dims.error();
  if (*n_dims == 0 || *n_dims > 4) return c.fail(std::to_string(*n_dims) + " dimensions (ggml allows 1 to 4)");
  std::uint64_t elements = 1;
  for (std::uint32_t d = 0; d < *n_dims; ++d) {
    auto ne = c.scalar<std::uint64_t>();
    if (!ne) return ne.error();
    if (*ne == 0 || *ne > (1ull << 40) || elements > (1ull << 62) / *ne) {
      return c.fail("dimension " + std::to_string(d) + " = " + std::to_string(*ne) + " is zero or absurdly large");
    }
    elements *= *ne;
    t.ne.push_back(*ne);
  }
  auto type = c.scalar<std::uint32_t>();
  if (!type) return type.error();
  t.ggml_type = *type;
  auto ggml = find_ggml_type(t.ggml_type);
  if (!ggml) return c.fail("unknown ggml type id " + std::to_string(t.ggml_type) + " (a newer llama.cpp format?)");
  if (t.ne[0] % ggml->block_weights != 0) {
    return c.fail(std::string(ggml->name) + " stores blocks of " + std::to_string(ggml->block_weights) +
                  " weights, which does not divide the row length " + std::to_string(t.ne[0]));
  }
  t.bytes = elements / ggml->block_weights * ggml->block_bytes;
  auto offset = c.scalar<std::uint64_t>();
  if (!offset) return offset.error();
  t.offset = *offset;
  return t;
}

// Tensor data offsets: aligned, inside the file, not overlapping.
Status check_tensor_data(const GgufFile& f, const std::string& label) {
  std::vector<const GgufTensorInfo*> by_offset;
  for (const GgufTensorInfo& t : f.tensors) by_offset.push_back(&t);
  std::sort(by_offset.begin(), by_offset.end(),
            [](const GgufTensorInfo* a, const GgufTensorInfo* b) { return a->offset < b->offset; });
  std::uint64_t prev_end = 0;
  const GgufTensorInfo* prev = nullptr;
  for (const GgufTensorInfo* t : by_offset) {
    const std::string where = label + ": tensor \"" + gguf_printable(t->name) + "\"";
    if (t->offset % f.alignment != 0) {
      return make_error(where + ": data offset " + std::to_string(t->offset) + " is not a multiple of the alignment " +
                        std::to_string(f.alignment));
    }
    if (f.data_offset > f.file_bytes || t->offset > f.file_bytes - f.data_offset ||
        t->bytes > f.file_bytes - f.data_offset - t->offset) {
      return make_error(where + ": data [" + std::to_string(f.data_offset + t->offset) + ", +" +
                        std::to_string(t->bytes) + ") runs past the end of the file (" + std::to_string(f.file_bytes) +
                        " bytes; truncated?)");
    }
    if (prev != nullptr && t->offset < prev_end) {
      return make_error(where + ": data overlaps tensor \"" + gguf_printable(prev->name) + "\"");
    }
    prev_end = t->offset + t->bytes;
    prev = t;
  }
  return Status::success();
}

Expected<GgufFile> parse(Source& src, const std::string& label, const GgufLimits& limits) {
  Cursor c(src, label, limits);
  GgufFile f;
  f.label = label;
  f.file_bytes = src.size();
  c.context("header");
  auto magic = c.scalar<std::uint32_t>();
  if (!magic) return magic.error();
  if (*magic != kGgufMagic) return make_error(label + ": not a GGUF file (magic bytes are not \"GGUF\"); check the path");
  auto version = c.scalar<std::uint32_t>();
  if (!version) return version.error();
  if (*version != 3) {
    return make_error(label + ": GGUF version " + std::to_string(*version) +
                      " is not supported (moebench reads version 3; convert the file with a current llama.cpp)");
  }
  f.version = *version;
  auto n_tensors = c.scalar<std::uint64_t>();
  if (!n_tensors) return n_tensors.error();
  auto n_kvs = c.scalar<std::uint64_t>();
  if (!n_kvs) return n_kvs.error();
  if (*n_tensors > limits.max_tensors) {
    return c.fail("tensor count " + std::to_string(*n_tensors) + " exceeds the limit of " +
                  std::to_string(limits.max_tensors) + " (corrupt or hostile header)");
  }
  if (*n_kvs > limits.max_kvs) {
    return c.fail("metadata count " + std::to_string(*n_kvs) + " exceeds the limit of " + std::to_string(limits.max_kvs) +
                  " (corrupt or hostile header)");
  }
  if (Status st = read_metadata(c, *n_kvs, f); !st) return st.error();
  std::set<std::string> names;
  for (std::uint64_t i = 0; i < *n_tensors; ++i) {
    c.context("tensor info " + std::to_string(i));
    auto t = read_tensor_info(c, names);
    if (!t) return t.error();
    f.tensors.push_back(std::move(*t));
  }
  c.context("tensor data");
  const std::uint64_t header_end = c.pos();
  f.data_offset = (header_end + f.alignment - 1) / f.alignment * f.alignment;
  if (Status st = check_tensor_data(f, label); !st) return st.error();
  return f;
}

}  // namespace

Expected<GgufFile> parse_gguf(const std::uint8_t* data, std::size_t size, const std::string& label,
                              const GgufLimits& limits) {
  MemorySource src(data, size);
  return parse(src, label, limits);
}

Expected<GgufFile> read_gguf(const std::string& path, const GgufLimits& limits) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(path + ": not a regular file");
  }
  FileSource src(fd, static_cast<std::uint64_t>(st.st_size));
  return parse(src, path, limits);
}

}  // namespace moebench

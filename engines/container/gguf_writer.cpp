// gguf_writer.cpp — see gguf_writer.h.
#include "engines/container/gguf_writer.h"

#include <cstring>

#include "engines/container/ggml_types.h"

namespace moebench {

GgufKv gguf_kv(std::string key, GgufType type, Json value, GgufType array_type) {
  GgufKv kv;
  kv.key = std::move(key);
  kv.type = type;
  kv.array_type = array_type;
  kv.value = std::move(value);
  return kv;
}

namespace {

template <typename T>
void put(std::string& out, T v) {
  char buf[sizeof(T)];
  std::memcpy(buf, &v, sizeof(T));
  out.append(buf, sizeof(T));
}

void put_string(std::string& out, const std::string& s) {
  put<std::uint64_t>(out, s.size());
  out += s;
}

Status put_value(std::string& out, GgufType type, GgufType array_type, const Json& v, const std::string& key) {
  auto bad = [&key, type] {
    return make_error("GGUF metadata \"" + key + "\": value does not fit type " + to_string(type));
  };
  try {
    switch (type) {
      case GgufType::kU8: put<std::uint8_t>(out, v.get<std::uint8_t>()); break;
      case GgufType::kI8: put<std::int8_t>(out, v.get<std::int8_t>()); break;
      case GgufType::kU16: put<std::uint16_t>(out, v.get<std::uint16_t>()); break;
      case GgufType::kI16: put<std::int16_t>(out, v.get<std::int16_t>()); break;
      case GgufType::kU32: put<std::uint32_t>(out, v.get<std::uint32_t>()); break;
      case GgufType::kI32: put<std::int32_t>(out, v.get<std::int32_t>()); break;
      case GgufType::kU64: put<std::uint64_t>(out, v.get<std::uint64_t>()); break;
      case GgufType::kI64: put<std::int64_t>(out, v.get<std::int64_t>()); break;
      case GgufType::kF32: put<float>(out, v.get<float>()); break;
      case GgufType::kF64: put<double>(out, v.get<double>()); break;
      case GgufType::kBool: put<std::uint8_t>(out, v.get<bool>() ? 1 : 0); break;
      case GgufType::kString:
        if (!v.is_string()) return bad();
        put_string(out, v.get<std::string>());
        break;
      case GgufType::kArray:
        if (!v.is_array() || array_type == GgufType::kArray) return bad();
        put<std::uint32_t>(out, static_cast<std::uint32_t>(array_type));
        put<std::uint64_t>(out, v.size());
        for (const Json& e : v) {
          if (Status st = put_value(out, array_type, GgufType::kU8, e, key); !st) return st;
        }
        break;
    }
  } catch (const Json::exception&) {
    return bad();
  }
  return Status::success();
}

}  // namespace

Expected<GgufLayout> gguf_layout(std::vector<GgufKv> kvs, std::vector<GgufTensorInfo>& tensors,
                                 std::uint64_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) return make_error("GGUF alignment must be a power of two");
  bool has_alignment = false;
  for (const GgufKv& kv : kvs) has_alignment = has_alignment || kv.key == "general.alignment";
  if (!has_alignment) kvs.push_back(gguf_kv("general.alignment", GgufType::kU32, alignment));
  std::uint64_t offset = 0;
  for (GgufTensorInfo& t : tensors) {
    auto type = find_ggml_type(t.ggml_type);
    if (!type) return make_error("tensor \"" + t.name + "\": unknown ggml type " + std::to_string(t.ggml_type));
    if (t.ne.empty() || t.ne.size() > 4 || t.ne[0] % type->block_weights != 0) {
      return make_error("tensor \"" + t.name + "\": shape does not suit " + type->name);
    }
    t.bytes = t.elements() / type->block_weights * type->block_bytes;
    t.offset = offset;
    offset = (offset + t.bytes + alignment - 1) / alignment * alignment;
  }
  GgufLayout layout;
  std::string& h = layout.header;
  put<std::uint32_t>(h, kGgufMagic);
  put<std::uint32_t>(h, 3);
  put<std::uint64_t>(h, tensors.size());
  put<std::uint64_t>(h, kvs.size());
  for (const GgufKv& kv : kvs) {
    put_string(h, kv.key);
    put<std::uint32_t>(h, static_cast<std::uint32_t>(kv.type));
    if (Status st = put_value(h, kv.type, kv.array_type, kv.value, kv.key); !st) return st.error();
  }
  for (const GgufTensorInfo& t : tensors) {
    put_string(h, t.name);
    put<std::uint32_t>(h, static_cast<std::uint32_t>(t.ne.size()));
    for (std::uint64_t d : t.ne) put<std::uint64_t>(h, d);
    put<std::uint32_t>(h, t.ggml_type);
    put<std::uint64_t>(h, t.offset);
  }
  h.resize((h.size() + alignment - 1) / alignment * alignment, '\0');
  layout.data_offset = h.size();
  layout.data_bytes = offset;
  return layout;
}

}  // namespace moebench

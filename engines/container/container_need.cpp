// container_need.cpp — the disk a set of containers needs, before anything
// is written (`moebench run` states it and refuses a sweep that does not
// fit): each distinct file once (a trunk file shared by several quants, an
// expert file used by several points), a replica on the filesystem of drive
// 0's expert file as a hard link (no bytes, as make_container makes it),
// per filesystem against its free space. Files already there and identical
// need nothing; an outdated file at a container's name is removed before
// the new one is written, so its blocks count as free.
#include <sys/stat.h>

#include <map>

#include "engines/container/container.h"
#include "vocab/quant_format.h"
#include "vocab/units.h"
#include "vocab/file_io.h"

namespace moebench {
namespace {

struct DirFs {
  dev_t dev = 0;
  bool known = false;
};

DirFs dir_fs(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return {};
  return {st.st_dev, true};
}

// The bytes an outdated regular file at `path` frees when it is replaced:
// none when another name (a hard link) keeps its blocks.
std::uint64_t outdated_bytes(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink > 1) return 0;
  return static_cast<std::uint64_t>(st.st_blocks) * 512;
}

}  // namespace

Expected<DiskNeed> container_disk_need(const std::vector<ContainerSpec>& specs) {
  struct Planned {
    std::string dir;
    std::uint64_t bytes = 0;
    bool trunk = false;
    bool link = false;     // a hard link to drive 0's expert file
    bool present = false;  // already there, identical
    std::uint64_t frees = 0;
  };
  std::map<std::string, Planned> files;  // by path: each file once
  for (const ContainerSpec& spec : specs) {
    // A spec make_container would refuse writes nothing (its point fails with that message).
    if (spec.drive_dirs.empty() || !find_quant(spec.quant) || !find_quant(spec.card.trunk_quant) ||
        !quant_fits_card(spec.card, spec.quant).empty() ||
        (spec.drive_layout != "replicate" && spec.drive_layout != "stripe")) {
      continue;
    }
    const std::string trunk_path = trunk_file_path(spec);
    if (!files.count(trunk_path)) {
      auto bytes = planned_trunk_file_bytes(spec);
      if (!bytes) return bytes.error();
      Planned p{spec.drive_dirs.front(), *bytes, true, false, false, 0};
      p.present = container_part_present(trunk_path, spec, ContainerPart::kTrunk, 0);
      if (!p.present) p.frees = outdated_bytes(trunk_path);
      files[trunk_path] = p;
    }
    const DirFs fs0 = dir_fs(spec.drive_dirs.front());
    for (int d = 0; d < static_cast<int>(spec.drive_dirs.size()); ++d) {
      const std::string path = expert_file_path(spec, d);
      if (files.count(path)) continue;
      const bool replica = spec.drive_layout == "replicate" && d > 0;
      auto bytes = planned_expert_file_bytes(spec, replica ? 0 : d);
      if (!bytes) return bytes.error();
      const std::string& dir = spec.drive_dirs[static_cast<std::size_t>(d)];
      const DirFs fs = dir_fs(dir);
      Planned p{dir, *bytes, false, false, false, 0};
      p.link = replica && fs0.known && fs.known && fs.dev == fs0.dev;
      p.present = container_part_present(path, spec, ContainerPart::kExperts, d);
      if (!p.present) p.frees = outdated_bytes(path);
      files[path] = p;
    }
  }
  // One entry per filesystem, named by its first drive directory in the
  // specs' order (drive 0 first).
  DiskNeed need;
  std::map<dev_t, std::size_t> fs_index;
  for (const ContainerSpec& spec : specs) {
    for (const std::string& dir : spec.drive_dirs) {
      const DirFs fs = dir_fs(dir);
      if (!fs.known) return make_error(dir + ": drive directory does not exist (create it first)");
      if (fs_index.count(fs.dev)) continue;
      DiskNeed::Filesystem f;
      f.dir = dir;
      auto avail = free_bytes(dir);
      if (!avail) return avail.error();
      f.free_bytes = *avail;
      fs_index.emplace(fs.dev, need.filesystems.size());
      need.filesystems.push_back(f);
    }
  }
  for (const auto& [path, p] : files) {
    const DirFs fs = dir_fs(p.dir);
    const auto it = fs_index.find(fs.dev);
    if (!fs.known || it == fs_index.end()) return make_error(p.dir + ": drive directory does not exist (create it first)");
    DiskNeed::Filesystem& f = need.filesystems[it->second];
    f.free_bytes += p.frees;
    if (p.link) {
      ++need.hard_links;
      continue;
    }
    f.total_bytes += p.bytes;
    if (!p.present) f.to_write_bytes += p.bytes;
    need.total_bytes += p.bytes;
    if (!p.present) need.to_write_bytes += p.bytes;
    if (p.trunk) {
      ++need.trunk_files;
      need.trunk_bytes += p.bytes;
    } else {
      ++need.expert_files;
      need.expert_bytes += p.bytes;
    }
  }
  return need;
}

std::string DiskNeed::summary() const {
  std::string s = "containers need " + format_bytes(static_cast<double>(total_bytes)) + " of disk: " +
                  std::to_string(trunk_files) + " trunk file" + (trunk_files == 1 ? "" : "s") + " (" +
                  format_bytes(static_cast<double>(trunk_bytes)) + ", shared by every quant) + " +
                  std::to_string(expert_files) + " expert file" + (expert_files == 1 ? "" : "s") + " (" +
                  format_bytes(static_cast<double>(expert_bytes)) + ")";
  if (hard_links > 0) {
    s += " + " + std::to_string(hard_links) + " replica" + (hard_links == 1 ? "" : "s") +
         " hard-linked to drive 0's file (one filesystem: no bytes)";
  }
  s += "; " + format_bytes(static_cast<double>(to_write_bytes)) + " to write";
  for (const Filesystem& f : filesystems) {
    s += "; " + format_bytes(static_cast<double>(f.free_bytes)) + " free on " + f.dir + "'s filesystem";
  }
  return s;
}

Status DiskNeed::check_fits() const {
  for (const Filesystem& f : filesystems) {
    if (f.to_write_bytes == 0) continue;
    if (f.to_write_bytes + kContainerHeadroomBytes > f.free_bytes) {
      return make_error(f.dir + ": the sweep's containers need " + format_bytes(static_cast<double>(f.to_write_bytes)) +
                        " more on this filesystem (+ " + format_bytes(static_cast<double>(kContainerHeadroomBytes)) +
                        " kept free) but only " + format_bytes(static_cast<double>(f.free_bytes)) +
                        " is free; free space there, pass --drive-dir with a directory on a larger filesystem, or "
                        "scale the sweep's model down (layers, experts)");
    }
  }
  return Status::success();
}

}  // namespace moebench

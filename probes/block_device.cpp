// block_device.cpp — see block_device.h.
#include "probes/block_device.h"

#include <sys/stat.h>
#include <sys/types.h>
#if defined(__linux__)
#include <sys/sysmacros.h>
#endif

#include <cstdio>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "vocab/file_io.h"
#include "vocab/text.h"

namespace fs = std::filesystem;

namespace moebench {
namespace {

std::string read_trimmed(const fs::path& p) {
  auto text = read_file(p.string());
  return text ? std::string(trim(*text)) : std::string();
}

bool is_prefix_dir(const std::string& mount, const std::string& path) {
  if (mount == "/") return true;
  return path == mount || (path.size() > mount.size() && path.compare(0, mount.size(), mount) == 0 &&
                           path[mount.size()] == '/');
}

// No mountinfo entry named the filesystem: statfs's type does, or it is
// "unknown" (in words, never an empty field).
void filesystem_from_statfs(DriveDevice& d, const std::string& mountinfo_path) {
  auto kind = filesystem_kind(d.dir);
  if (kind && !kind->name.empty()) {
    d.filesystem = kind->name;
    d.notes.push_back("no " + mountinfo_path + " entry covers " + d.dir + " (a chroot?): filesystem " + kind->name +
                      " from its statfs type, mount point unknown");
    return;
  }
  d.filesystem = "unknown";
  const std::string magic = fmt::format("0x{:x}", kind ? static_cast<unsigned long long>(kind->magic) : 0ull);
  d.notes.push_back("filesystem of " + d.dir + " unknown: no " + mountinfo_path + " entry covers it and " +
                    (kind ? std::string("its statfs type ") + magic + " is not one moebench knows"
                          : kind.error().message));
}

}  // namespace

std::optional<MountEntry> find_mount(const std::string& mountinfo_text, const std::string& dev_id,
                                     const std::string& real_path) {
  std::optional<MountEntry> best;
  std::istringstream in(mountinfo_text);
  std::string line;
  while (std::getline(in, line)) {
    // ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS
    std::istringstream fields(line);
    std::string id, parent, dev, root, mount;
    if (!(fields >> id >> parent >> dev >> root >> mount)) continue;
    std::string tok;
    while (fields >> tok && tok != "-") {
    }
    MountEntry e{dev, mount, "", ""};
    fields >> e.filesystem >> e.source;
    if (dev != dev_id || !is_prefix_dir(mount, real_path)) continue;
    if (!best || mount.size() > best->mount_point.size()) best = e;
  }
  return best;
}

DriveDevice describe_drive(const std::string& dir, const std::string& mountinfo_path) {
  DriveDevice d;
  d.dir = dir;
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) {
    d.notes.push_back(dir + ": cannot stat");
    return d;
  }
#if defined(__linux__)
  d.dev_id = std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
  std::error_code ec;
  const std::string real = fs::weakly_canonical(dir, ec).string();
  if (auto mounts = read_file(mountinfo_path)) {
    if (auto m = find_mount(*mounts, d.dev_id, real)) {
      d.filesystem = m->filesystem;
      d.mount_point = m->mount_point;
    }
  }
  if (d.filesystem.empty()) filesystem_from_statfs(d, mountinfo_path);
  const fs::path sys = fs::path("/sys/dev/block") / d.dev_id;
  fs::path dev_dir = fs::canonical(sys, ec);
  if (ec) {
    d.notes.push_back("no block device behind " + dir + " (device " + d.dev_id +
                      (d.filesystem.empty() ? "" : ", filesystem " + d.filesystem) +
                      "): a virtual filesystem, not a drive");
    return d;
  }
  if (fs::exists(dev_dir / "partition")) {
    d.partition = dev_dir.filename().string();
    dev_dir = dev_dir.parent_path();
  }
  d.disk = dev_dir.filename().string();
  const std::string vendor = read_trimmed(dev_dir / "device" / "vendor");
  const std::string model = read_trimmed(dev_dir / "device" / "model");
  d.model = trim(vendor + " " + model).empty() ? "" : std::string(trim(vendor + " " + model));
  const std::string sectors = read_trimmed(dev_dir / "size");
  if (!sectors.empty()) d.size_bytes = std::stoull(sectors) * 512;
  const std::string rot = read_trimmed(dev_dir / "queue" / "rotational");
  if (!rot.empty()) d.rotational = rot == "1";
  // Walk up from the device to the PCI function that carries it.
  for (fs::path p = fs::canonical(dev_dir / "device", ec); !ec && p.has_parent_path() && p != p.root_path();
       p = p.parent_path()) {
    const std::string name = p.filename().string();
    if (name.size() == 12 && name[4] == ':' && name[7] == ':' && name[10] == '.') {
      d.pci_bus_id = name;
      const std::string speed = read_trimmed(p / "current_link_speed");
      const std::string width = read_trimmed(p / "current_link_width");
      if (!speed.empty()) d.pci_link = speed + " x" + width;
      break;
    }
  }
  if (d.model.empty()) d.notes.push_back(d.disk + ": the driver does not expose a model name");
  if (!d.pci_bus_id.empty() && d.pci_link.empty()) {
    d.notes.push_back(d.disk + ": PCI link speed not exposed (virtual or non-PCIe device)");
  }
#else
  filesystem_from_statfs(d, mountinfo_path);
  d.notes.push_back("device mapping is implemented for Linux only");
#endif
  return d;
}

}  // namespace moebench

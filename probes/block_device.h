// block_device.h — which device a drive directory lives on, and what it is:
// stat(dir) → major:minor → /sys/dev/block → the disk (a partition's
// parent), its model, size, whether it is rotational, its PCI link, and the
// filesystem and mount point from /proc/self/mountinfo. Where no mountinfo
// entry covers the directory (a bare chroot, sbuild or pbuilder style), the
// filesystem comes from statfs's type instead, and is "unknown" when that is
// not known either. Everything is best-effort: what cannot be read is left
// empty with a note saying why. Linux only; other systems get the notes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace moebench {

struct DriveDevice {
  std::string dir;
  std::string dev_id;        // "254:0"
  std::string disk;          // "vda", "nvme0n1"
  std::string partition;     // "nvme0n1p2" or ""
  std::string model;         // vendor + model, when the driver exposes them
  std::uint64_t size_bytes = 0;
  std::optional<bool> rotational;
  std::string filesystem;    // "ext4", "tmpfs", ..., "unknown"
  std::string mount_point;
  std::string pci_bus_id;    // "0000:00:02.0"
  std::string pci_link;      // "16.0 GT/s PCIe x4" when the link is exposed
  std::vector<std::string> notes;
};

// `mountinfo_path` is /proc/self/mountinfo but for tests, which pass a file
// with no entry for `dir` (or none at all) to take the statfs fallback.
DriveDevice describe_drive(const std::string& dir, const std::string& mountinfo_path = "/proc/self/mountinfo");

struct MountEntry {
  std::string dev_id;
  std::string mount_point;
  std::string filesystem;
  std::string source;
};

// The mountinfo entry for device `dev_id` whose mount point is the longest
// prefix of `real_path` (pure, for tests).
std::optional<MountEntry> find_mount(const std::string& mountinfo_text, const std::string& dev_id,
                                     const std::string& real_path);

}  // namespace moebench

#include "coredump/dump.hpp"

#include <cstring>
#include <string_view>
#include <unordered_map>

#include "audit/elf.hpp"
#include "coredump/cudbg_layout.hpp"

namespace fp8kit::coredump {

namespace L = layout;

const Device* CoreDump::device(std::uint32_t id) const {
  for (const Device& d : devices)
    if (d.id == id) return &d;
  return nullptr;
}

const Grid* CoreDump::grid(std::uint32_t dev, std::uint64_t id) const {
  for (const Grid& g : grids)
    if (g.device == dev && g.id == id) return &g;
  return nullptr;
}

bool Lane::reg(unsigned r, std::uint32_t* v) const {
  constexpr std::size_t kRegBytes = 4;
  if (!regs.has(std::size_t{r} * kRegBytes, kRegBytes)) return false;
  *v = regs.u32(std::size_t{r} * kRegBytes, "register");
  return true;
}

const Module* CoreDump::module(std::uint32_t dev, std::uint64_t handle) const {
  for (const Module& m : modules)
    if (m.device == dev && m.handle == handle) return &m;
  return nullptr;
}

bool is_core_dump(Bytes b) {
  return audit::is_elf64_cuda(b) && b.u16(L::elf::kEType, "ELF e_type") == L::kEtCore;
}

namespace {

// What a row of each parent table hands down to its children.
struct SmRow {
  std::uint32_t device, sm, exception;
};
struct CtaRow {
  std::uint32_t device, sm, sm_exception;
  std::uint64_t grid;
  Dim3 block;
};
struct ContextRow {
  std::uint32_t device;
  std::uint64_t context;
};

template <typename T>
using RowsBySection = std::unordered_map<std::size_t, std::vector<T>>;

Dim3 dim3_at(Bytes row, std::size_t off, const char* what) {
  return {row.u32(off, what), row.u32(off + 4, what), row.u32(off + 8, what)};
}

class Reader {
 public:
  explicit Reader(Bytes file) : file_(file), elf_(file) {
    if (!is_core_dump(file)) throw FormatError("an ELF file, but not a CUDA GPU core dump (ET_CORE, EM_CUDA)");
    shoff_ = file.u64(L::elf::kEShoff, "ELF e_shoff");
    shentsize_ = file.u16(L::elf::kEShentsize, "ELF e_shentsize");
  }

  CoreDump read() {
    pass(L::kDeviceTable, &Reader::devices);
    pass(L::kContextTable, &Reader::contexts);
    pass(L::kSmTable, &Reader::sms);
    pass(L::kGridTable, &Reader::grids);
    pass(L::kCtaTable, &Reader::ctas);
    pass(L::kModuleTable, &Reader::modules);
    pass(L::kWarpTable, &Reader::warps);
    pass(L::kLaneTable, &Reader::lanes);
    pass(L::kRegisters, &Reader::registers);
    pass(L::kRelocatedImage, &Reader::image);
    pass(L::kMetaData, &Reader::meta);
    if (out_.devices.empty()) throw FormatError("no device table (.cudbg.devtbl): not a complete GPU core dump");
    return std::move(out_);
  }

 private:
  using Handler = void (Reader::*)(std::size_t index, const audit::ElfSection& s);

  void pass(L::Table type, Handler h) {
    const auto& secs = elf_.sections();
    for (std::size_t i = 0; i < secs.size(); ++i)
      if (secs[i].type == type) (this->*h)(i, secs[i]);
  }

  std::string where(std::size_t index) const {
    const std::string_view n = elf_.sections()[index].name;
    return "section " + std::to_string(index) + (n.empty() ? "" : " (" + std::string(n) + ")");
  }

  // The rows of a table section, each at least min_row bytes.
  std::vector<Bytes> rows(std::size_t index, const audit::ElfSection& s, std::size_t min_row) const {
    const std::uint64_t entsize = file_.u64(shoff_ + index * shentsize_ + L::elf::kShEntsize, "section entry size");
    const Bytes data = elf_.section_bytes(s);
    if (data.size == 0) return {};
    if (entsize < min_row)
      throw FormatError(where(index) + ": rows of " + std::to_string(entsize) + " bytes, fewer than the " +
                        std::to_string(min_row) + " this table needs");
    std::vector<Bytes> out;
    const std::size_t n = data.size / entsize;
    out.reserve(n);
    for (std::size_t r = 0; r < n; ++r) out.push_back(data.sub(r * entsize, entsize, "table row"));
    return out;
  }

  // The parent row a child table hangs under (sh_link, sh_info).
  template <typename T>
  const T& parent(const RowsBySection<T>& table, std::size_t index, const audit::ElfSection& s,
                  const char* parent_kind) const {
    const auto it = table.find(s.link);
    if (it == table.end())
      throw FormatError(where(index) + ": links to section " + std::to_string(s.link) + ", which is not a " +
                        parent_kind + " table");
    if (s.info >= it->second.size())
      throw FormatError(where(index) + ": links to row " + std::to_string(s.info) + " of a " + parent_kind +
                        " table with " + std::to_string(it->second.size()) + " rows");
    return it->second[s.info];
  }

  // A device string, from `.strtab` as the driver writes it; empty when absent.
  std::string string_at(std::uint64_t off) const {
    const audit::ElfSection* st = elf_.find(".strtab");
    if (st == nullptr || !st->has_bytes() || off >= st->size) return {};
    const Bytes b = elf_.section_bytes(*st);
    const char* begin = reinterpret_cast<const char*>(b.data + off);
    const void* nul = std::memchr(begin, 0, b.size - off);
    return std::string(begin, nul ? static_cast<const char*>(nul) - begin : b.size - off);
  }

  void devices(std::size_t index, const audit::ElfSection& s) {
    auto& ids = device_rows_[index];
    for (const Bytes r : rows(index, s, L::device::kMinRow)) {
      Device d;
      d.id = r.u32(L::device::kDevId, "device id");
      d.name = string_at(r.u64(L::device::kName, "device name"));
      d.sm_type = string_at(r.u64(L::device::kSmType, "device SM type"));
      d.num_sms = r.u32(L::device::kNumSms, "device SM count");
      d.warps_per_sm = r.u32(L::device::kNumWarps, "device warps per SM");
      d.lanes_per_warp = r.u32(L::device::kNumLanes, "device lanes per warp");
      d.sm_major = r.u32(L::device::kSmMajor, "device SM major");
      d.sm_minor = r.u32(L::device::kSmMinor, "device SM minor");
      ids.push_back(d.id);
      device_ids_.push_back(d.id);
      out_.devices.push_back(std::move(d));
    }
  }

  void contexts(std::size_t index, const audit::ElfSection& s) {
    auto& mine = context_rows_[index];
    for (const Bytes r : rows(index, s, L::context::kMinRow)) {
      const std::uint32_t dev_row = r.u32(L::context::kDeviceIdx, "context device index");
      if (dev_row >= device_ids_.size())
        throw FormatError(where(index) + ": context names device row " + std::to_string(dev_row) + " of " +
                          std::to_string(device_ids_.size()));
      mine.push_back({device_ids_[dev_row], r.u64(L::context::kContextId, "context id")});
    }
  }

  void sms(std::size_t index, const audit::ElfSection& s) {
    const std::uint32_t dev = parent(device_rows_, index, s, "device");
    auto& mine = sm_rows_[index];
    for (const Bytes r : rows(index, s, L::sm::kMinRow)) {
      const std::uint32_t exc = r.size >= L::sm::kMinRowWithException ? r.u32(L::sm::kException, "SM exception") : 0;
      const std::uint32_t id = r.u32(L::sm::kSmId, "SM id");
      mine.push_back({dev, id, exc});
      if (exc != 0)
        out_.sm_faults.push_back({dev, id, exc, r.u32(L::sm::kErrorPcValid, "SM error PC valid") != 0,
                                  r.u64(L::sm::kErrorPc, "SM error PC")});
    }
  }

  void grids(std::size_t index, const audit::ElfSection& s) {
    const std::uint32_t dev = parent(device_rows_, index, s, "device");
    for (const Bytes r : rows(index, s, L::grid::kMinRow)) {
      Grid g;
      g.id = r.u64(L::grid::kGridId, "grid id");
      g.device = dev;
      g.context = r.u64(L::grid::kContext, "grid context");
      g.function_entry = r.u64(L::grid::kFunctionEntry, "grid function entry");
      g.module = r.u64(L::grid::kModule, "grid module");
      g.grid_dim = dim3_at(r, L::grid::kGridDim, "grid dimensions");
      g.block_dim = dim3_at(r, L::grid::kBlockDim, "block dimensions");
      out_.grids.push_back(g);
    }
  }

  void ctas(std::size_t index, const audit::ElfSection& s) {
    const SmRow sm = parent(sm_rows_, index, s, "SM");
    auto& mine = cta_rows_[index];
    for (const Bytes r : rows(index, s, L::cta::kMinRow))
      mine.push_back({sm.device, sm.sm, sm.exception, r.u64(L::cta::kGridId, "CTA grid id"),
                      dim3_at(r, L::cta::kBlockIdx, "CTA block index")});
  }

  void modules(std::size_t index, const audit::ElfSection& s) {
    const ContextRow ctx = parent(context_rows_, index, s, "context");
    auto& mine = module_rows_[index];
    for (const Bytes r : rows(index, s, L::module::kMinRow)) {
      mine.push_back(out_.modules.size());
      out_.modules.push_back({ctx.device, ctx.context, r.u64(L::module::kHandle, "module handle"), Bytes()});
    }
  }

  void warps(std::size_t index, const audit::ElfSection& s) {
    const CtaRow cta = parent(cta_rows_, index, s, "CTA");
    auto& mine = warp_rows_[index];
    for (const Bytes r : rows(index, s, L::warp::kMinRow)) {
      Warp w;
      w.device = cta.device;
      w.sm = cta.sm;
      w.sm_exception = cta.sm_exception;
      w.grid = cta.grid;
      w.block = cta.block;
      w.warp = r.u32(L::warp::kWarpId, "warp id");
      w.error_pc = r.u64(L::warp::kErrorPc, "warp error PC");
      w.error_pc_valid = r.u32(L::warp::kErrorPcValid, "warp error PC valid") != 0;
      w.valid_lanes = r.u32(L::warp::kValidLanes, "warp valid lanes");
      w.active_lanes = r.u32(L::warp::kActiveLanes, "warp active lanes");
      mine.push_back(out_.warps.size());
      out_.warps.push_back(std::move(w));
    }
  }

  void lanes(std::size_t index, const audit::ElfSection& s) {
    const std::size_t warp = parent(warp_rows_, index, s, "warp");
    Warp& w = out_.warps[warp];
    auto& mine = lane_rows_[index];
    for (const Bytes r : rows(index, s, L::lane::kMinRow)) {
      Lane l;
      l.lane = r.u32(L::lane::kLane, "lane index");
      l.thread = dim3_at(r, L::lane::kThreadIdx, "thread index");
      l.pc = r.u64(L::lane::kVirtualPc, "lane PC");
      l.exception = r.u32(L::lane::kException, "lane exception");
      mine.push_back({warp, w.lanes.size()});
      w.lanes.push_back(l);
    }
  }

  void registers(std::size_t index, const audit::ElfSection& s) {
    const auto [warp, lane] = parent(lane_rows_, index, s, "lane");
    out_.warps[warp].lanes[lane].regs = elf_.section_bytes(s);
  }

  void image(std::size_t index, const audit::ElfSection& s) {
    out_.modules[parent(module_rows_, index, s, "module")].image = elf_.section_bytes(s);
  }

  // One record, written with sh_entsize 0.
  void meta(std::size_t, const audit::ElfSection& s) {
    const Bytes r = elf_.section_bytes(s);
    if (r.size < L::meta::kMinRow) return;
    DumpInfo& m = out_.info;
    m.has_meta = true;
    m.driver_major = r.u32(L::meta::kDriverMajor, "driver version");
    m.driver_minor = r.u32(L::meta::kDriverMinor, "driver version");
    m.cuda_major = r.u32(L::meta::kCudaMajor, "CUDA version");
    m.cuda_minor = r.u32(L::meta::kCudaMinor, "CUDA version");
    m.flags = r.u32(L::meta::kFlags, "dump flags");
  }

  Bytes file_;
  audit::Elf elf_;
  std::uint64_t shoff_ = 0;
  std::uint16_t shentsize_ = 0;
  CoreDump out_;
  RowsBySection<std::uint32_t> device_rows_;  // device ids
  std::vector<std::uint32_t> device_ids_;     // every device row, in order (contexts index it)
  RowsBySection<ContextRow> context_rows_;
  RowsBySection<SmRow> sm_rows_;
  RowsBySection<CtaRow> cta_rows_;
  RowsBySection<std::size_t> module_rows_;  // indices into out_.modules
  RowsBySection<std::size_t> warp_rows_;    // indices into out_.warps
  RowsBySection<std::pair<std::size_t, std::size_t>> lane_rows_;  // (warp, lane) indices
};

}  // namespace

CoreDump parse_core_dump(Bytes file) { return Reader(file).read(); }

}  // namespace fp8kit::coredump

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Crafted ELF files for the guest's safety tests (harness/guest/safety.sh).

    harness/safety/mkelf.py ARCH OUTDIR        ARCH: x86_64 or arm64

Writes into OUTDIR, for the guest's architecture (ELF64 ET_DYN, EM_X86_64
or EM_AARCH64, little endian), files that are never executed: only their
PF_X segment is mmapped (harness/safety/ehmap.c), which is when the kernel
reads their program headers and builds (or refuses) a table. Their text
is zeros, holes of sparse files where it is large.

  hostile.so    a 4 MiB .eh_frame: one CIE, then 4,096 FDEs whose length
                fields all run to the end of the section, so that each
                record overlaps every later one: each FDE holds a
                DW_CFA_expression whose block skips over the later FDEs to
                a tail of DW_CFA_nop bytes (TAIL bytes, see below). Its
                .eh_frame_hdr lists them, sorted, at increasing PCs.
  valid.so      a .eh_frame of the same size made of ordinary disjoint FDEs
                (one per small function: advance_loc/def_cfa_offset rows)
                covering the text, with its sorted .eh_frame_hdr.
  ehbig.so      the same as valid.so with a 60 MiB .eh_frame (under the
                64 MiB bound a section may have): its conversion takes
                seconds under TCG (the SIGKILL test).
  pcmask.so     a PT_GNU_SFRAME section (SFrame v2) just under 64 MiB
                (sparse) with one PCMASK function of 16 rows per 16-byte
                block over 16 MiB of text: a table of more than 2^24 rows.
  sframe-big.so a PT_GNU_SFRAME section larger than 64 MiB (sparse), one
                ordinary function.
                Both are zeros beyond their first 8 KiB (holes).

Only python3's standard library. The layout of each file: ELF header and
program headers at 0, the read-only segment (from offset 0) holds
.eh_frame_hdr and .eh_frame (which ends that segment: the kernel takes the
section to run to the segment's end) or the .sframe section; the text
segment (R+X) follows at a 64 KiB boundary, at a virtual address equal to
its file offset.
"""
import array
import os
import struct
import sys

MIB = 1 << 20
PT_LOAD = 1
PT_GNU_EH_FRAME = 0x6474E550
PT_GNU_SFRAME = 0x6474E554
PF_X, PF_W, PF_R = 1, 2, 4
ALIGN = 0x10000

# Hostile file: the tail of DW_CFA_nop bytes each FDE runs through. An
# unbounded interpreter runs it once per FDE (and per pass): small enough
# that a kernel without the fix still finishes in seconds under TCG.
HOSTILE_TAIL = 4096
HOSTILE_FDES = 4096
EH_SIZE = 4 * MIB
EHBIG_SIZE = 60 * MIB
SFRAME_CAP = 64 * MIB

ARCHES = {
    # e_machine, CIE: code/data alignment, RA column, initial instructions,
    # function size of a valid FDE, register of the hostile expression,
    # SFrame ABI, fixed RA offset, CFA offset of the rows
    "x86_64": dict(machine=62, caf=1, daf=-8, ra=16,
                   # def_cfa rsp+8; offset r16 at cfa-8
                   init=bytes([0x0C, 7, 8, 0x80 | 16, 1]),
                   func=8, expr_reg=12, abi=3, ra_off=-8, cfa_off=8),
    "arm64": dict(machine=183, caf=4, daf=-8, ra=30,
                  # def_cfa sp+0
                  init=bytes([0x0C, 31, 0]),
                  func=16, expr_reg=19, abi=2, ra_off=0, cfa_off=16),
}


def uleb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def sleb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if (v == 0 and not b & 0x40) or (v == -1 and b & 0x40):
            out.append(b)
            return bytes(out)
        out.append(b | 0x80)


def uleb4(v):
    """A ULEB128 padded to exactly 4 bytes (v < 2^28)."""
    assert 0 <= v < 1 << 28
    return bytes([(v & 0x7F) | 0x80, ((v >> 7) & 0x7F) | 0x80,
                  ((v >> 14) & 0x7F) | 0x80, (v >> 21) & 0x7F])


def align(v, a):
    return (v + a - 1) // a * a


def elf_header(machine, phnum):
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    return ident + struct.pack("<HHIQQQIHHHHHH", 3, machine, 1, 0, 64, 0, 0,
                               64, 56, phnum, 64, 0, 0)


def phdr(ptype, flags, off, filesz, memsz=None, align_=8):
    return struct.pack("<IIQQQQQQ", ptype, flags, off, off, off, filesz,
                       filesz if memsz is None else memsz, align_)


def cie(a):
    """A CIE "zR" with pc-relative sdata4 FDE pointers, 24 bytes."""
    body = (struct.pack("<I", 0) + bytes([1]) + b"zR\0" + uleb(a["caf"]) +
            sleb(a["daf"]) + bytes([a["ra"]]) + uleb(1) + bytes([0x1B]) +
            a["init"])
    body += bytes(24 - 4 - len(body))      # DW_CFA_nop
    assert len(body) == 20
    return struct.pack("<I", len(body)) + body


def eh_frame_hdr(hdr_addr, eh_addr, entries):
    """.eh_frame_hdr: version 1, eh_frame_ptr pcrel sdata4, fde_count
    udata4, table datarel sdata4; @entries: an array('i') of (pc, fde)
    pairs, already relative to the header."""
    out = bytearray([1, 0x1B, 0x03, 0x3B])
    out += struct.pack("<iI", eh_addr - (hdr_addr + 4), len(entries) // 2)
    out += entries.tobytes()
    return out


def write_file(path, machine, ro_end, text_size, parts, extra_phdrs):
    """@parts: (offset, bytes) to write; the file holes elsewhere. The RO
    segment is [0, ro_end); the text follows at a 64 KiB boundary."""
    text = align(ro_end, ALIGN)
    phdrs = [phdr(PT_LOAD, PF_R, 0, ro_end, align_=ALIGN),
             phdr(PT_LOAD, PF_R | PF_X, text, text_size, align_=ALIGN)]
    phdrs += extra_phdrs
    with open(path + ".tmp", "wb") as f:
        f.write(elf_header(machine, len(phdrs)) + b"".join(phdrs))
        for off, data in parts:
            f.seek(off)
            f.write(data)
        f.truncate(text + text_size)
    os.replace(path + ".tmp", path)
    return text


def text_start(ro_end):
    return align(ro_end, ALIGN)


def valid_eh(a, path, eh_size):
    """Disjoint 32-byte FDEs, one per function of a["func"] bytes."""
    hdr_addr = 0x1000
    n = (eh_size - 24 - 4) // 32
    hdr_size = 12 + 8 * n
    eh_addr = align(hdr_addr + hdr_size, 16)
    ro_end = eh_addr + eh_size
    text = text_start(ro_end)
    func = a["func"]
    # FDE: length, CIE pointer, pc_begin (pcrel), pc_range, aug length 0,
    # advance_loc 1; def_cfa_offset 16; advance_loc 2; def_cfa_offset 8
    # (on arm64 the last offset 0), DW_CFA_nop to the end: 8 words.
    # bytes 16..31: aug length 0, the rows, DW_CFA_nop
    b16 = bytes([0, 0x41, 0x0E, 0x10, 0x42, 0x0E, 0x08 if func == 8 else 0])
    w4_7 = array.array("I", b16 + bytes(16 - len(b16)))
    fdes = array.array("I", bytes(32 * n))
    offs = range(24, 24 + 32 * n, 32)
    fdes[0::8] = array.array("I", [28]) * n
    fdes[1::8] = array.array("I", (o + 4 for o in offs))
    # pc_begin at eh_addr + off + 8: function i at text + i * func
    fdes[2::8] = array.array("I", (text + i * func - (eh_addr + o + 8)
                                   for i, o in enumerate(offs)))
    fdes[3::8] = array.array("I", [func]) * n
    for k in range(4):
        fdes[4 + k::8] = array.array("I", [w4_7[k]]) * n
    entries = array.array("i", bytes(8 * n))
    entries[0::2] = array.array("i", (text + i * func - hdr_addr
                                      for i in range(n)))
    entries[1::2] = array.array("i", (eh_addr + o - hdr_addr for o in offs))
    eh = bytearray(cie(a)) + fdes.tobytes()
    eh += bytes(eh_size - len(eh))          # terminator and padding
    hdr = eh_frame_hdr(hdr_addr, eh_addr, entries)
    write_file(path, a["machine"], ro_end, align(n * func, 4096),
               [(hdr_addr, hdr), (eh_addr, eh)],
               [phdr(PT_GNU_EH_FRAME, PF_R, hdr_addr, len(hdr), align_=4)])
    return n


def hostile_eh(a, path):
    hdr_addr = 0x1000
    n = HOSTILE_FDES
    hdr_size = 12 + 8 * n
    eh_addr = align(hdr_addr + hdr_size, 16)
    eh_size = EH_SIZE
    ro_end = eh_addr + eh_size
    text = text_start(ro_end)
    func = a["func"]
    tail_start = eh_size - HOSTILE_TAIL
    eh = bytearray(eh_size)                 # zero: DW_CFA_nop
    c = cie(a)
    eh[0:len(c)] = c
    entries = array.array("i")
    for i in range(n):
        off = len(c) + 32 * i
        pc = text + i * func
        rec = struct.pack("<IIiI", eh_size - off - 4, off + 4,
                          pc - (eh_addr + off + 8), func)
        rec += uleb(0) + bytes([0x10]) + uleb(a["expr_reg"])
        # the expression block runs from here to the tail of nops
        rec += uleb4(tail_start - (off + len(rec) + 4))
        eh[off:off + len(rec)] = rec
        entries.append(pc - hdr_addr)
        entries.append(eh_addr + off - hdr_addr)
    assert len(c) + 32 * n < tail_start
    hdr = eh_frame_hdr(hdr_addr, eh_addr, entries)
    write_file(path, a["machine"], ro_end, align(n * func, 4096),
               [(hdr_addr, hdr), (eh_addr, bytes(eh))],
               [phdr(PT_GNU_EH_FRAME, PF_R, hdr_addr, len(hdr), align_=4)])


def sframe_file(a, path, sec_size, func_size, pcmask):
    """SFrame v2, one function at the start of the text: PCMASK with 16
    rows per 16-byte block, or ordinary with one row."""
    sf_addr = 0x1000
    ro_end = sf_addr + sec_size
    text = text_start(ro_end)
    nfres = 16 if pcmask else 1
    # header: magic, version 2, flags SORTED, ABI, fixed FP/RA offsets,
    # no aux header, 1 FDE, nfres FREs of 3 bytes, FDEs at 0, FREs after
    hdr = struct.pack("<HBBBbbBIIIII", 0xDEE2, 2, 0x1, a["abi"], 0,
                      a["ra_off"], 0, 1, nfres, 3 * nfres, 0, 20)
    # FDE (v2): start (from the section start), size, first FRE, number
    # of FREs, info (FRE type ADDR1, FDE type PCMASK or PCINC), block size
    info = (1 << 4) if pcmask else 0
    fde = struct.pack("<iIIIBBH", text - sf_addr, func_size, 0, nfres, info,
                      16 if pcmask else 0, 0)
    # FRE: start (1 byte), info: CFA on SP, 1 offset of 1 byte; offset
    fres = b"".join(struct.pack("<BBb", k, 0x03, a["cfa_off"])
                    for k in range(nfres))
    sec = hdr + fde + fres
    assert len(hdr) == 28 and len(fde) == 20
    write_file(path, a["machine"], ro_end, func_size,
               [(sf_addr, sec)],
               [phdr(PT_GNU_SFRAME, PF_R, sf_addr, sec_size, align_=8)])
    return nfres


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ARCHES:
        sys.exit("usage: harness/safety/mkelf.py x86_64|arm64 OUTDIR")
    if sys.byteorder != "little":
        sys.exit("mkelf.py: a little-endian host is needed (array byte order)")
    a = ARCHES[sys.argv[1]]
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    hostile_eh(a, os.path.join(out, "hostile.so"))
    n = valid_eh(a, os.path.join(out, "valid.so"), EH_SIZE)
    nb = valid_eh(a, os.path.join(out, "ehbig.so"), EHBIG_SIZE)
    # 16 MiB of text in 16-byte blocks of 16 rows (+1 each): > 2^24 rows
    # zeros beyond their first 8 KiB: harness/guest/safety.sh makes
    # fresh sparse copies of them from that head and their size
    sframe_file(a, os.path.join(out, "pcmask.so"), SFRAME_CAP - 4096,
                16 * MIB, True)
    sframe_file(a, os.path.join(out, "sframe-big.so"), SFRAME_CAP + 65536,
                64, False)
    rows = 3 + 16 + (16 * MIB // 16) * 17
    with open(os.path.join(out, "mkelf.txt"), "w") as f:
        f.write(f"hostile.so: .eh_frame {EH_SIZE} bytes, {HOSTILE_FDES} "
                f"overlapping FDEs, nop tail {HOSTILE_TAIL} bytes\n")
        f.write(f"valid.so: .eh_frame {EH_SIZE} bytes, {n} FDEs\n")
        f.write(f"ehbig.so: .eh_frame {EHBIG_SIZE} bytes, {nb} FDEs\n")
        f.write(f"pcmask.so: .sframe {SFRAME_CAP - 4096} bytes, one PCMASK "
                f"function needing {rows} rows (2^24 = {1 << 24})\n")
        f.write(f"sframe-big.so: .sframe {SFRAME_CAP + 65536} bytes\n")


if __name__ == "__main__":
    main()

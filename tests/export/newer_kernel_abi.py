#!/usr/bin/env python3
"""Turns an exported library's program into the one a newer compiler would
write after one kernel's parameters changed: in PROGRAMS_C (the exported
<name>_programs.c), the kernel table entry of operation OP gets version + 1
and four more parameter bytes, as does every operation that calls it, and
the checksum is recomputed, so only the ABI differs from what the library
was exported with. Prints "<variant> <version> <params bytes>" of the new
entry for the caller's expected refusal.

  newer_kernel_abi.py PROGRAMS_C OP
"""
import re
import struct
import sys
import zlib

HEADER = struct.Struct("<4s23I")  # ProgramHeader (runtime/include/tinyaot/program_format.h)
FIELDS = ["magic", "format_version", "file_bytes", "checksum", "core", "isa", "rounding",
          "arena_bytes", "num_inputs", "inputs_offset", "num_outputs", "outputs_offset",
          "num_ops", "ops_offset", "num_operands", "operands_offset", "num_kernels",
          "kernels_offset", "params_offset", "params_bytes", "constants_offset",
          "constants_bytes", "debug_offset", "debug_bytes"]
OP_BYTES, ENTRY_BYTES, NAME_BYTES = 32, 48, 32


def main():
    path, op_index = sys.argv[1], int(sys.argv[2])
    source = open(path).read()
    array = re.search(r"\] = \{([^}]*)\};", source)
    data = bytearray(int(b, 16) for b in re.findall(r"0x([0-9a-f]{2})", array.group(1)))
    h = dict(zip(FIELDS, HEADER.unpack_from(data, 0)))
    ops = [h["ops_offset"] + i * OP_BYTES for i in range(h["num_ops"])]
    kernel = struct.unpack_from("<H", data, ops[op_index])[0]
    entry = h["kernels_offset"] + kernel * ENTRY_BYTES
    name = data[entry:entry + NAME_BYTES].split(b"\0")[0].decode()
    version, params = struct.unpack_from("<HH", data, entry + NAME_BYTES + 4)
    struct.pack_into("<HH", data, entry + NAME_BYTES + 4, version + 1, params + 4)
    for op in ops:
        if struct.unpack_from("<H", data, op)[0] == kernel:
            op_params = struct.unpack_from("<I", data, op + 8)[0]
            struct.pack_into("<I", data, op + 8, op_params + 4)
    struct.pack_into("<I", data, 12, 0)
    struct.pack_into("<I", data, 12, zlib.crc32(bytes(data[:h["file_bytes"]])))
    lines = "".join(("\n   " if i % 16 == 0 else "") + " 0x%02x," % b for i, b in enumerate(data))
    open(path, "w").write(source[:array.start(1)] + lines + "\n" + source[array.end(1):])
    print(name, version + 1, params + 4)


if __name__ == "__main__":
    main()

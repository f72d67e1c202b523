#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a device tree source of many nodes for the cross-check's dtc run:
BUSES simple buses of DEVS devices each, every device with a few properties,
a phandle reference to another device and nested child nodes.

    gen-dts.py BUSES DEVS OUTPUT
"""
import sys


def main():
    buses, devs = int(sys.argv[1]), int(sys.argv[2])
    out = ['/dts-v1/;', '', '/ {', '\tcompatible = "xcheck,big";',
           '\t#address-cells = <1>;', '\t#size-cells = <1>;',
           '\tinterrupt-parent = <&intc>;',
           '\tintc: interrupt-controller@1000 {',
           '\t\tcompatible = "xcheck,intc";', '\t\treg = <0x1000 0x100>;',
           '\t\tinterrupt-controller;', '\t\t#interrupt-cells = <3>;',
           '\t};']
    for b in range(buses):
        base = 0x10000000 + b * 0x100000
        out += [f'\tbus@{base:x} {{', '\t\tcompatible = "simple-bus";',
                '\t\t#address-cells = <1>;', '\t\t#size-cells = <1>;',
                f'\t\tranges = <0 0x{base:x} 0x100000>;']
        for d in range(devs):
            reg = d * 0x1000
            peer = (d * 7 + 3) % devs
            out += [f'\t\tdev_{b}_{d}: dev@{reg:x} {{',
                    f'\t\t\tcompatible = "xcheck,dev{d % 5}", "xcheck,dev";',
                    f'\t\t\treg = <0x{reg:x} 0x1000>;',
                    f'\t\t\tinterrupts = <{d % 32} {b} 4>;',
                    f'\t\t\tclock-names = "core", "bus{d % 3}";',
                    f'\t\t\tvalues = /bits/ 16 <{d} {b} {d ^ b} 0x{reg & 0xffff:x}>;',
                    f'\t\t\tlabel = "device {b}.{d}";',
                    f'\t\t\tpeer = <&dev_{b}_{peer}>;',
                    '\t\t\tstatus = "okay";',
                    '\t\t\tport {', f'\t\t\t\tendpoint-{d % 4} {{',
                    f'\t\t\t\t\tid = <{d}>;', '\t\t\t\t};', '\t\t\t};',
                    '\t\t};']
        out.append('\t};')
    out.append('};')
    with open(sys.argv[3], 'w', encoding='ascii') as f:
        f.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()

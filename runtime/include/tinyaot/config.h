// Build configuration of the runtime and kernels. In this tree it defines
// nothing: every rounding mode is compiled in. A library written by
// `tinyaot export` carries a generated copy instead (tools/export_text.cpp):
//
//   TINYAOT_ROUNDING_ONLY  a Rounding value: the kernels compile their loops
//                          for that mode alone (with_rounding), and the
//                          loader refuses a program in another mode.
#pragma once

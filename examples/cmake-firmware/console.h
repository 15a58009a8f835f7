/* The firmware's only channel to the host on an emulated board: Arm
 * semihosting (bkpt 0xab), as QEMU serves it with
 * -semihosting-config enable=on,target=native. */
#ifndef CONSOLE_H
#define CONSOLE_H

#include <stdint.h>

/* A line on QEMU's stdout, newline appended. */
void console_print(const char* line);

/* "<kernel> <-append string>" into buffer; 0 if it does not fit. */
int console_command_line(char* buffer, uint32_t capacity);

/* Reads the whole file `path` into buffer if it holds exactly `bytes`
 * bytes; returns 1 on success, 0 otherwise. */
int console_read_file(const char* path, void* buffer, uint32_t bytes);

#endif

#include "tinyaot/status.h"

#include <stdarg.h>

#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

LogHook g_log_hook = nullptr;

struct Writer {
  char* out;
  uint32_t capacity;
  uint32_t length;
  void put(char c) {
    if (length + 1 < capacity) out[length++] = c;
  }
  void put_string(const char* s) {
    for (; s && *s; ++s) put(*s);
  }
  void put_unsigned(uint32_t value, uint32_t base) {
    char digits[12];
    int n = 0;
    do {
      const uint32_t d = value % base;
      digits[n++] = static_cast<char>(d < 10 ? '0' + d : 'a' + d - 10);
      value /= base;
    } while (value != 0);
    while (n > 0) put(digits[--n]);
  }
};

}  // namespace

TINYAOT_LOAD_TIME const char* status_text(Status status) {
  switch (status) {
#define TINYAOT_STATUS_TEXT(name, text) \
  case Status::name:                    \
    return text;
    TINYAOT_STATUS_LIST(TINYAOT_STATUS_TEXT)
#undef TINYAOT_STATUS_TEXT
  }
  return "unknown status";
}

void set_log_hook(LogHook hook) { g_log_hook = hook; }

TINYAOT_LOAD_TIME void log_message(const char* format, ...) {
  if (g_log_hook == nullptr) return;
  char buffer[256];
  Writer w{buffer, sizeof(buffer), 0};
  va_list args;
  va_start(args, format);
  for (const char* p = format; *p; ++p) {
    if (*p != '%' || p[1] == '\0') {
      w.put(*p);
      continue;
    }
    ++p;
    switch (*p) {
      case 's':
        w.put_string(va_arg(args, const char*));
        break;
      case 'd': {
        const int value = va_arg(args, int);
        if (value < 0) {
          w.put('-');
          w.put_unsigned(0u - static_cast<uint32_t>(value), 10);
        } else {
          w.put_unsigned(static_cast<uint32_t>(value), 10);
        }
        break;
      }
      case 'u':
        w.put_unsigned(va_arg(args, unsigned), 10);
        break;
      case 'x':
        w.put_unsigned(va_arg(args, unsigned), 16);
        break;
      default:
        w.put(*p);
        break;
    }
  }
  va_end(args);
  buffer[w.length] = '\0';
  g_log_hook(buffer);
}

}  // namespace tinyaot

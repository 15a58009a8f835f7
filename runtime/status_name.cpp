// status_name apart from status.cpp: a firmware that never asks for the
// names (the C API gives status_text) links none of them, which it would
// if they shared an object file (string literals share one section).
#include "tinyaot/status.h"

namespace tinyaot {

const char* status_name(Status status) {
  switch (status) {
#define TINYAOT_STATUS_NAME(name, text) \
  case Status::name:                    \
    return #name;
    TINYAOT_STATUS_LIST(TINYAOT_STATUS_NAME)
#undef TINYAOT_STATUS_NAME
  }
  return "kUnknownStatus";
}

}  // namespace tinyaot

// The board's C start-up and fault report: targets/boards/common.
#include "startup.cpp"

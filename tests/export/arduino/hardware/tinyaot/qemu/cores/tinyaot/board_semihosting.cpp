// Semihosting calls (console, exit): targets/boards/common.
#include "semihosting.cpp"

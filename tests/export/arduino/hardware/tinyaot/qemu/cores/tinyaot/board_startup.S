/* The board's vector table and reset handler: targets/boards/common. */
#include "startup.S"

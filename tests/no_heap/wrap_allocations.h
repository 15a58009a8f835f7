// Counts heap allocations made through the wrapped entry points (see
// wrap_allocations.cpp and the link options in CMakeLists.txt).
#pragma once

namespace tinyaot::test {

void start_counting_allocations();
unsigned long stop_counting_allocations();  // calls since start
const char* first_allocation_function();    // mangled name of the first, for messages

}  // namespace tinyaot::test

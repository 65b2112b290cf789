/* Exits with status 3 (or crashes with "crash"): perfcast comm run must
 * report it and write nothing. */
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv)
{
  volatile double x[4] = {1, 2, 3, 4};
  x[0] = x[1] + x[2];
  if (argc > 1 && strcmp(argv[1], "crash") == 0) {
    volatile int* p = 0;
    return *p;
  }
  return 3;
}

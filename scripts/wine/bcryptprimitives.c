/* A stand-in for Windows' bcryptprimitives.dll, which Debian's wine 8
 * lacks: Rust's standard library (1.78 and later) imports ProcessPrng
 * from it. Used only to run the suite's Windows builds under wine
 * (scripts/wine.sh); a Windows machine has the real one. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length); /* RtlGenRandom */

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
  while (length > 0) {
    ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
    if (!SystemFunction036(data, chunk)) return FALSE;
    data += chunk;
    length -= chunk;
  }
  return TRUE;
}

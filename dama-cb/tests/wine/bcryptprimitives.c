/* For the Wine tests only: Wine 8 has no bcryptprimitives.dll, whose ProcessPrng the Rust
 * standard library imports on Windows 10 and later (real Windows has it). This stand-in
 * exports ProcessPrng and fills the buffer from advapi32's RtlGenRandom (SystemFunction036). */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}

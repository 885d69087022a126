#!/usr/bin/env bash
# The library exports exactly the functions the header declares: no more (the version script keeps
# the Swift runtime and engine local), no fewer (@_cdecl checks nothing against the header).
# Usage: check_exports.sh LIBRARY HEADER
set -euo pipefail
library=$1
header=$2

declared=$(grep -E '^OOD_API ' "$header" | grep -oE '\bood_[a-z0-9_]+ *\(' | tr -d ' (' | sort -u)
# Every defined dynamic symbol, whatever its type; the version suffix (@@OFFLINEODATA_0) removed.
exported=$(nm -D --defined-only "$library" | awk '$3 != "" {print $3}' | sed 's/@.*//' | grep -v '^OFFLINEODATA_0$' | sort -u)

missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
extra=$(comm -13 <(echo "$declared") <(echo "$exported"))
status=0
if [ -n "$missing" ]; then echo "declared in the header but not exported:"; echo "$missing" | sed 's/^/  /'; status=1; fi
if [ -n "$extra" ]; then echo "exported but not declared in the header:"; echo "$extra" | sed 's/^/  /'; status=1; fi
if ldd "$library" | grep -q 'libswift'; then echo "the library needs a Swift runtime library:"; ldd "$library" | grep libswift; status=1; fi
# The libraries the header says the library needs, and no other.
needed=$(readelf -d "$library" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort)
unexpected=$(echo "$needed" | grep -vE '^(libsqlite3|libxml2|libcurl|libcrypto|libc|libm|libstdc\+\+|libgcc_s|ld-linux[-a-z0-9_]*)\.so' || true)
if [ -n "$unexpected" ]; then echo "the library needs libraries the header does not name:"; echo "$unexpected" | sed 's/^/  /'; status=1; fi
soname=$(readelf -d "$library" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" != "libofflineodata.so.0" ]; then echo "SONAME is '$soname', expected libofflineodata.so.0"; status=1; fi
count=$(echo "$declared" | wc -l)
if [ $status -eq 0 ]; then echo "exports: $count functions, exactly the header's; needs $(echo $needed); SONAME $soname"; fi
exit $status

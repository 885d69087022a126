/* The baseline of the call-overhead benchmark: the same trivial function as ood_version_number,
   compiled by the C compiler into a shared library of its own, so both calls cross a PLT. */
int baseline_version_number(void) { return 1000; }

/* Prints the library version: the smallest program that proves the installed package links. */
#include <offline_odata.h>
#include <stdio.h>

int main(void) {
    printf("OfflineOData %s\n", ood_version());
    return ood_version_number() == OOD_VERSION_NUMBER ? 0 : 1;
}

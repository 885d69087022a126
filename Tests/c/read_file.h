/* Reads a whole file for the C tests (a $metadata document); NULL when it cannot. Free with free(). */
#ifndef OOD_TEST_READ_FILE_H
#define OOD_TEST_READ_FILE_H
#include <stdio.h>
#include <stdlib.h>

static char *read_file(const char *path) {
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
    if (text && fread(text, 1, (size_t)size, file) == (size_t)size) {
        text[size] = 0;
    } else {
        free(text);
        text = NULL;
    }
    fclose(file);
    return text;
}
#endif

#define _XOPEN_SOURCE 600
#include "CTestSupport.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int clup_test_open_pty(char *path, int size) {
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0) return -1;
    const char *name = NULL;
    if (grantpt(master) < 0 || unlockpt(master) < 0 || (name = ptsname(master)) == NULL) {
        close(master);
        return -1;
    }
    strncpy(path, name, (size_t)size - 1);
    path[size - 1] = '\0';
    return master;
}

// What the tests need from libc that Swift's Glibc module does not export.
#ifndef CTESTSUPPORT_H
#define CTESTSUPPORT_H

/// Opens a pseudo-terminal pair: returns the master's descriptor and writes the slave's
/// path (/dev/pts/N) into `path`; -1 (errno) on failure.
int clup_test_open_pty(char *path, int size);

#endif

import ClupctlCommand

// A development build's clupctl; the package's is a link to clupd, which starts the same.
ClupctlMain.main()

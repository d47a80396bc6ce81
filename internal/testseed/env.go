package testseed

import "os"

// lookupEnv is os.LookupEnv; tests replace it.
var lookupEnv = os.LookupEnv

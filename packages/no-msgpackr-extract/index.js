// msgpackr (used by BullMQ) loads the optional native module `msgpackr-extract` when present and falls back to its
// JavaScript decoder otherwise. The native module's platform packages are not all on the registry these machines
// reach, which makes `npm ci` refuse the lock file (npm/cli#9846), and it needs an install script that is not run
// here anyway. package.json overrides it with this package, which exports nothing: msgpackr uses its JS decoder.
module.exports = undefined

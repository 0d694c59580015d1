package app

import (
	"path/filepath"

	"talaria/tools"
)

// newProcesses returns the session's process manager with a reaper whose
// run file is under $TALARIA_HOME/run, after ending what killed talaria
// processes left there. watchdog is talaria's own executable (main sets
// it): it also serves as the spawner every command starts from, so that
// no command's parent process holds talaria's secrets.
func newProcesses(home string, watchdog []string) *tools.ProcessManager {
	dir := filepath.Join(home, "run")
	_, _ = tools.CleanupOrphans(dir) // best effort: a failure leaves them as they were
	pm := tools.NewProcessManager()
	pm.SetReaper(tools.NewReaper(dir, watchdog))
	if len(watchdog) > 0 {
		pm.SetSpawner(watchdog[0])
	}
	return pm
}

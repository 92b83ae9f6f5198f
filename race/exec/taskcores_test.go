package exec

import "testing"

// TestTaskCores: a stage whose tasks fill the task slots runs each task's
// operators on one device core; fewer tasks share the slots among them; as
// tasks finish, the unfinished ones share the slots the finished ones left;
// a stage of one task (and the switch off) leaves every core to it.
func TestTaskCores(t *testing.T) {
	for _, c := range []struct{ slots, tasks, finished, want int }{
		{2, 1, 0, 0}, {2, 2, 0, 1}, {2, 3, 0, 1}, {2, 200, 0, 1}, {4, 2, 0, 2}, {4, 3, 0, 1}, {1, 5, 0, 1},
		{2, 2, 1, 2}, {2, 3, 1, 1}, {2, 3, 2, 2}, {4, 3, 1, 2}, {4, 3, 2, 4}, {2, 2, 2, 2}, {1, 5, 4, 1},
	} {
		q := &query{slots: newSlotSet(c.slots)}
		s := &stage{tasks: c.tasks}
		s.finished.Store(int64(c.finished))
		if got := q.taskCores(s)(); got != c.want {
			t.Errorf("%d slots, %d tasks, %d finished: %d cores a task, want %d", c.slots, c.tasks, c.finished, got, c.want)
		}
	}
	defer func() { splitTasks = true }()
	splitTasks = false
	if got := (&query{slots: newSlotSet(2)}).taskCores(&stage{tasks: 2})(); got != 0 {
		t.Errorf("switched off: %d cores a task, want 0 (all)", got)
	}
}

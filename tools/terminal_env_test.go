package tools

import (
	"reflect"
	"testing"
)

func TestFilterEnviron(t *testing.T) {
	in := []string{"PATH=/bin", "OPENAI_API_KEY=sk-x", "MY_POOL=k1", "github_token=t", "DB_PASSWORD=p", "AWS_SECRET_ACCESS_KEY=s",
		"HOME=/h", "PASS_TOKEN=ok", "LANG=C", "weird"}
	got := FilterEnviron(in, []string{"MY_POOL"}, []string{"PASS_TOKEN"})
	want := []string{"PATH=/bin", "HOME=/h", "PASS_TOKEN=ok", "LANG=C", "weird"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FilterEnviron = %q, want %q", got, want)
	}
}

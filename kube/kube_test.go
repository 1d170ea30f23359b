package kube

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// parse reads the manifests back with Parse and checks that each object
// marshals again to the very text it was read from.
func parse(t *testing.T, data []byte) Manifests {
	t.Helper()
	m, err := Parse(data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	var again bytes.Buffer
	var objs []any
	if m.ConfigMap != nil {
		objs = append(objs, m.ConfigMap)
	}
	if m.Secret != nil {
		objs = append(objs, m.Secret)
	}
	objs = append(objs, m.Job)
	for i, o := range objs {
		y, err := yaml.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			again.WriteString("---\n")
		}
		again.Write(y)
	}
	if again.String() != string(data) {
		t.Errorf("the manifests do not round-trip:\n%s\nagain:\n%s", data, again.String())
	}
	return m
}

func spec() Spec {
	return Spec{
		Name: "sbgo-oltp", Namespace: "bench", Image: "registry.example/sbgo:1", Clients: 8,
		Script: "custom.lua", Args: []string{"--threads=16", "--time=60", "--mysql-host=db"},
		StartAt: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC),
		Files:   []File{{Path: "custom.lua", Data: "require('lib.util')\n"}, {Path: "lib/util.lua", Data: "return {}\n"}},
		Secrets: []Secret{{Option: "mysql-password", Value: "pw"}}, CPU: "2", Memory: "1Gi",
		Deadline: 5 * time.Minute,
	}
}

// TestManifestsRoundTrip: the manifests parse back into the k8s.io/api
// types and carry the whole spec: an Indexed Job of N pods running the
// command with the shared start and the pod's index, the files mounted
// where require() looks, the password read from the Secret only.
func TestManifestsRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, spec()); err != nil {
		t.Fatal(err)
	}
	m := parse(t, b.Bytes())
	if m.ConfigMap == nil || m.Secret == nil || m.Job == nil {
		t.Fatalf("objects missing: %+v", m)
	}
	j := m.Job.Spec
	if *j.Completions != 8 || *j.Parallelism != 8 || *j.CompletionMode != batchv1.IndexedCompletion || *j.BackoffLimit != 0 || *j.ActiveDeadlineSeconds != 300 {
		t.Errorf("job spec %+v", j)
	}
	c := j.Template.Spec.Containers[0]
	want := []string{"custom.lua", "--threads=16", "--time=60", "--mysql-host=db", "--mysql-password=$(SBGO_MYSQL_PASSWORD)",
		"--start-at=2026-12-02T10:00:00Z", "--client-id=$(SBGO_CLIENT_ID)", "--results-file=-", "run"}
	if !slices.Equal(c.Args, want) || c.Image != "registry.example/sbgo:1" || c.Command[0] != Binary {
		t.Errorf("container %s %q %q\nwant args %q", c.Image, c.Command, c.Args, want)
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	if ref := env["SBGO_MYSQL_PASSWORD"].ValueFrom; ref == nil || ref.SecretKeyRef.Name != "sbgo-oltp-secrets" || ref.SecretKeyRef.Key != "mysql-password" {
		t.Errorf("the password is not read from the Secret: %+v", env["SBGO_MYSQL_PASSWORD"])
	}
	if ref := env[ClientIDEnv].ValueFrom; ref == nil || ref.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		t.Errorf("the client id is not the completion index: %+v", env[ClientIDEnv])
	}
	if strings.Count(b.String(), "pw\n") != 1 || m.Secret.StringData["mysql-password"] != "pw" {
		t.Errorf("the password is not in the Secret alone:\n%s", b.String())
	}
	if c.Resources.Requests.Cpu().String() != "2" || c.Resources.Limits.Memory().String() != "1Gi" || c.Resources.Limits.Cpu().String() != "0" {
		t.Errorf("resources %+v", c.Resources)
	}
	if c.WorkingDir != WorkDir || c.VolumeMounts[0].MountPath != WorkDir {
		t.Errorf("working directory %q, mounts %+v", c.WorkingDir, c.VolumeMounts)
	}
	items := j.Template.Spec.Volumes[0].ConfigMap.Items
	if len(items) != 2 || items[1].Path != "lib/util.lua" || m.ConfigMap.Data[items[1].Key] != "return {}\n" {
		t.Errorf("volume items %+v, data %v", items, m.ConfigMap.Data)
	}
	for _, o := range []metav1.ObjectMeta{m.ConfigMap.ObjectMeta, m.Secret.ObjectMeta, m.Job.ObjectMeta} {
		if o.Namespace != "bench" || o.Labels["app.kubernetes.io/instance"] != "sbgo-oltp" {
			t.Errorf("%s: namespace %q, labels %v", o.Name, o.Namespace, o.Labels)
		}
	}
}

// TestManifestsWithoutFilesOrSecretValues: a bundled script needs no
// ConfigMap, and an existing Secret is referred to, never written.
func TestManifestsWithoutFilesOrSecretValues(t *testing.T) {
	s := spec()
	s.Files, s.Script, s.Deadline = nil, "oltp_read_only", 0
	s.SecretName, s.Secrets = "db-credentials", []Secret{{Option: "pgsql-password"}}
	var b bytes.Buffer
	if err := Write(&b, s); err != nil {
		t.Fatal(err)
	}
	m := parse(t, b.Bytes())
	if m.ConfigMap != nil || m.Secret != nil {
		t.Errorf("a ConfigMap or a Secret for a bundled script and an existing Secret:\n%s", b.String())
	}
	c := m.Job.Spec.Template.Spec.Containers[0]
	if ref := c.Env[1].ValueFrom.SecretKeyRef; ref.Name != "db-credentials" || ref.Key != "pgsql-password" {
		t.Errorf("secret reference %+v", ref)
	}
	if c.WorkingDir != "" || len(m.Job.Spec.Template.Spec.Volumes) != 0 || m.Job.Spec.ActiveDeadlineSeconds != nil {
		t.Errorf("a working directory, volumes or a deadline without files or time:\n%s", b.String())
	}
}

// TestSpecErrors: a spec the API server would refuse is one line.
func TestSpecErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Spec)
		want   string
	}{
		{"no clients", func(s *Spec) { s.Clients = 0 }, "--clients=0: at least one client"},
		{"bad name", func(s *Spec) { s.Name = "Sbgo_Run" }, "--job-name=Sbgo_Run: a lowercase RFC 1123 label"},
		{"long name", func(s *Spec) { s.Name = strings.Repeat("a", 51) }, "must be no more than 50 characters"},
		{"bad namespace", func(s *Spec) { s.Namespace = "a.b" }, "--namespace=a.b:"},
		{"bad cpu", func(s *Spec) { s.CPU = "two" }, "--cpu=two is not a Kubernetes quantity"},
		{"bad memory", func(s *Spec) { s.Memory = "1 GB" }, "--memory=1 GB is not a Kubernetes quantity"},
		{"too big", func(s *Spec) { s.Files[1].Data = strings.Repeat("x", 1<<20) }, "more than a ConfigMap's 1048576"},
		{"same key", func(s *Spec) { s.Files[0].Path = "lib.util.lua" }, "two files of the script are both lib.util.lua"},
		{"no image", func(s *Spec) { s.Image = "" }, "no image"},
	} {
		s := spec()
		tc.change(&s)
		err := Write(&bytes.Buffer{}, s)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", tc.name, err, tc.want)
		}
	}
}

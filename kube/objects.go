package kube

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

const (
	// WorkDir is where the pods find the script and its modules, and so
	// their working directory: require() searches ./?.lua first.
	WorkDir = "/scripts"
	// Binary is the path of sbgo in the image (Dockerfile).
	Binary = "/sbgo"
	// ClientIDEnv carries the pod's completion index to --client-id.
	ClientIDEnv = "SBGO_CLIENT_ID"
	// maxName keeps the Job's name, its objects' suffixes and its pods'
	// host names (NAME-INDEX) within the 63 characters of a label.
	maxName = 50
	// maxConfigMap is the API server's limit on a ConfigMap's data.
	maxConfigMap = 1 << 20
	// nonRoot is the user the pods run as: nobody's own number in
	// distroless images, free of any meaning in a scratch image.
	nonRoot = 65532
)

// ScriptsName and SecretName are the names of the run's ConfigMap and
// generated Secret.
func ScriptsName(job string) string { return job + "-scripts" }

// SecretName is the name of the Secret sbgo kube generates.
func SecretName(job string) string { return job + "-secrets" }

func nameErrors(name string) []string {
	msgs := validation.IsDNS1123Label(name)
	if len(name) > maxName {
		msgs = append(msgs, fmt.Sprintf("must be no more than %d characters", maxName))
	}
	return msgs
}

func (s Spec) meta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: s.Namespace, Labels: s.labels()}
}

// labels mark every object and pod of the run.
func (s Spec) labels() map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":      "sbgo",
		"app.kubernetes.io/instance":  s.Name,
		"app.kubernetes.io/component": "client",
	}
}

// configMap holds the files, each under a key made of its path.
func configMap(s Spec) (*corev1.ConfigMap, error) {
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: s.meta(ScriptsName(s.Name)),
		Data:       map[string]string{},
	}
	size := 0
	for _, f := range s.Files {
		key := fileKey(f.Path)
		if _, dup := cm.Data[key]; dup {
			return nil, fmt.Errorf("two files of the script are both %s in the ConfigMap", key)
		}
		cm.Data[key] = f.Data
		size += len(key) + len(f.Data)
	}
	if size > maxConfigMap {
		return nil, fmt.Errorf("the script and its modules hold %d bytes, more than a ConfigMap's %d", size, maxConfigMap)
	}
	return cm, nil
}

// fileKey is a ConfigMap key for a path: keys may not hold slashes.
func fileKey(p string) string { return strings.ReplaceAll(path.Clean(p), "/", ".") }

// secret holds the values of the secret options.
func secret(s Spec) *corev1.Secret {
	sec := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: s.meta(SecretName(s.Name)),
		Type:       corev1.SecretTypeOpaque,
		StringData: map[string]string{},
	}
	for _, o := range s.Secrets {
		sec.StringData[o.Option] = o.Value
	}
	return sec
}

// job is the Indexed Job: N pods at once, each run once (a retried
// client would start after --start-at and fail anyway).
func job(s Spec) (*batchv1.Job, error) {
	pod, err := podSpec(s)
	if err != nil {
		return nil, err
	}
	n := int32(s.Clients)
	mode := batchv1.IndexedCompletion
	j := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: s.meta(s.Name),
		Spec: batchv1.JobSpec{
			CompletionMode: &mode,
			Completions:    &n,
			Parallelism:    &n,
			BackoffLimit:   ptr(int32(0)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: s.labels()},
				Spec:       pod,
			},
		},
	}
	if s.Deadline > 0 {
		j.Spec.ActiveDeadlineSeconds = ptr(int64(s.Deadline / time.Second))
	}
	return j, nil
}

// podSpec runs sbgo once, as a user without privileges on a read-only
// root file system, spread over the nodes where it can be.
func podSpec(s Spec) (corev1.PodSpec, error) {
	c, err := container(s)
	if err != nil {
		return corev1.PodSpec{}, err
	}
	pod := corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		Containers:    []corev1.Container{c},
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot:   ptr(true),
			RunAsUser:      ptr(int64(nonRoot)),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		Affinity: spread(s),
	}
	if len(s.Files) > 0 {
		pod.Volumes = []corev1.Volume{scriptsVolume(s)}
	}
	return pod, nil
}

// spread prefers one client per node: clients that share a node share
// its CPUs, which is what several clients are meant to avoid.
func spread(s Spec) *corev1.Affinity {
	return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
			Weight: 100,
			PodAffinityTerm: corev1.PodAffinityTerm{
				TopologyKey: corev1.LabelHostname,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{
					batchv1.JobNameLabel: s.Name,
				}},
			},
		}},
	}}
}

func scriptsVolume(s Spec) corev1.Volume {
	var items []corev1.KeyToPath
	for _, f := range s.Files {
		items = append(items, corev1.KeyToPath{Key: fileKey(f.Path), Path: path.Clean(f.Path)})
	}
	return corev1.Volume{Name: "scripts", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: ScriptsName(s.Name)},
		Items:                items,
	}}}
}

// container is sbgo's command line: the script, the options, the secret
// options as $(VAR) from the Secret, the per-client options, and run.
// The results go to the log, between markers, for sbgo merge.
func container(s Spec) (corev1.Container, error) {
	res, err := resources(s)
	if err != nil {
		return corev1.Container{}, err
	}
	args := append([]string{s.Script}, s.Args...)
	env := []corev1.EnvVar{{Name: ClientIDEnv, ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['" + batchv1.JobCompletionIndexAnnotation + "']"},
	}}}
	secretName := s.SecretName
	if secretName == "" {
		secretName = SecretName(s.Name)
	}
	for _, o := range s.Secrets {
		v := SecretKeyEnv(o.Option)
		env = append(env, corev1.EnvVar{Name: v, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: secretName}, Key: o.Option,
		}}})
		args = append(args, "--"+o.Option+"=$("+v+")")
	}
	args = append(args, "--start-at="+s.StartAt.UTC().Format(time.RFC3339Nano),
		"--client-id=$("+ClientIDEnv+")", "--results-file=-", "run")
	c := corev1.Container{
		Name: "sbgo", Image: s.Image, Command: []string{Binary}, Args: args, Env: env,
		Resources: res,
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr(false),
			ReadOnlyRootFilesystem:   ptr(true),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		},
	}
	if len(s.Files) > 0 {
		c.WorkingDir = WorkDir
		c.VolumeMounts = []corev1.VolumeMount{{Name: "scripts", MountPath: WorkDir, ReadOnly: true}}
	}
	return c, nil
}

// resources requests the CPU and memory, and limits the memory: a CPU
// limit would throttle the client, which the database's latency would
// then show.
func resources(s Spec) (corev1.ResourceRequirements, error) {
	cpu, err := resource.ParseQuantity(s.CPU)
	if err != nil {
		return corev1.ResourceRequirements{}, fmt.Errorf("--cpu=%s is not a Kubernetes quantity (2, 500m)", s.CPU)
	}
	mem, err := resource.ParseQuantity(s.Memory)
	if err != nil {
		return corev1.ResourceRequirements{}, fmt.Errorf("--memory=%s is not a Kubernetes quantity (512Mi, 2Gi)", s.Memory)
	}
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: mem},
	}, nil
}

// SortedFiles returns files by path, so that manifests do not change
// with the order files were found in.
func SortedFiles(files []File) []File {
	out := slices.Clone(files)
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return out
}

func ptr[T any](v T) *T { return &v }

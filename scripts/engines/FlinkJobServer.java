// Beam's Flink job server (FlinkJobServerDriver, same arguments) that
// stages no jars with a job. Beam's own one sends every jar of its class
// path to the JobManager with each job and each TaskManager downloads
// them again (160 MB, most of the time before a job's first document);
// the TaskManagers of scripts/flink-cluster.sh hold the same jars on their
// class path already, this class among them, and load Beam from there
// (classloader.resolve-order: parent-first). scripts/flink-cluster.sh
// compiles it against that class path and caches it in $ENGINES_CACHE.
package neardup.engines;

import java.util.Collections;
import org.apache.beam.model.pipeline.v1.RunnerApi;
import org.apache.beam.runners.flink.FlinkJobInvoker;
import org.apache.beam.runners.flink.FlinkJobServerDriver;
import org.apache.beam.runners.jobsubmission.JobInvocation;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.util.construction.resources.PipelineResourcesDetector;
import org.apache.beam.vendor.grpc.v1p60p1.com.google.protobuf.Struct;
import org.apache.beam.vendor.grpc.v1p60p1.com.google.protobuf.Value;
import org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.util.concurrent.ListeningExecutorService;

public final class FlinkJobServer {
  /** The job option FlinkJobInvoker reads the files to stage through. */
  static final String DETECTOR_OPTION =
      "beam:option:pipeline_resources_detector_factory_class:v1";

  public static void main(String[] args) throws Exception {
    FileSystems.setDefaultPipelineOptions(PipelineOptionsFactory.create());
    FlinkJobServerDriver.FlinkServerConfiguration conf = FlinkJobServerDriver.parseArgs(args);
    FlinkJobServerDriver.fromConfig(conf, () -> new Invoker(conf)).run();
  }

  /** FlinkJobInvoker with NoFiles as each job's resources detector. */
  static final class Invoker extends FlinkJobInvoker {
    Invoker(FlinkJobServerDriver.FlinkServerConfiguration conf) {
      super(conf);
    }

    @Override
    protected JobInvocation invokeWithExecutor(
        RunnerApi.Pipeline pipeline,
        Struct options,
        String retrievalToken,
        ListeningExecutorService executorService) {
      Struct withDetector =
          options.toBuilder()
              .putFields(
                  DETECTOR_OPTION,
                  Value.newBuilder().setStringValue(NoFiles.class.getName()).build())
              .build();
      return super.invokeWithExecutor(pipeline, withDetector, retrievalToken, executorService);
    }
  }

  /** A resources detector that finds nothing to stage. */
  public static final class NoFiles implements PipelineResourcesDetector.Factory {
    public static NoFiles create() {
      return new NoFiles();
    }

    @Override
    public PipelineResourcesDetector getPipelineResourcesDetector() {
      return classLoader -> Collections.emptyList();
    }
  }
}

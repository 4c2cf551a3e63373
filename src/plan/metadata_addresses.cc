#include "plan/metadata_addresses.h"

namespace cordon {

namespace {

// Most of these are link-local or unique-local and refused by the registries already; they
// are named here so the refusal says what they are, and so the two in public or shared space
// (168.63.129.16, 100.100.100.200) are refused whatever the registries say.
const MetadataAddress kAddresses[] = {
    {"169.254.169.254", "the cloud instance metadata service (AWS, Google Cloud, Azure, Oracle)",
     "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-retrieval.html; "
     "https://cloud.google.com/compute/docs/metadata/overview; "
     "https://learn.microsoft.com/azure/virtual-machines/instance-metadata-service; "
     "https://docs.oracle.com/iaas/Content/Compute/Tasks/gettingmetadata.htm"},
    {"fd00:ec2::254", "AWS's instance metadata service over IPv6",
     "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-retrieval.html"},
    {"169.254.170.2", "AWS's ECS task metadata and credentials endpoint",
     "https://docs.aws.amazon.com/AmazonECS/latest/developerguide/task-iam-roles.html"},
    {"169.254.170.23", "AWS's EKS Pod Identity agent",
     "https://docs.aws.amazon.com/eks/latest/userguide/pod-id-how-it-works.html"},
    {"fd00:ec2::23", "AWS's EKS Pod Identity agent over IPv6",
     "https://docs.aws.amazon.com/eks/latest/userguide/pod-id-how-it-works.html"},
    {"fd20:ce::254", "Google Cloud's metadata server over IPv6",
     "https://cloud.google.com/compute/docs/metadata/querying-metadata"},
    {"168.63.129.16", "Azure's wire server (platform and extension channel)",
     "https://learn.microsoft.com/azure/virtual-network/what-is-ip-address-168-63-129-16"},
    {"100.100.100.200", "Alibaba Cloud's instance metadata service",
     "https://www.alibabacloud.com/help/en/ecs/user-guide/view-instance-metadata"},
    {"192.0.0.192", "Oracle Cloud Classic's instance metadata service",
     "https://docs.oracle.com/en/cloud/iaas-classic/compute-iaas-cloud/stcsg/"
     "retrieving-instance-metadata.html"},
    {"169.254.0.23", "Tencent Cloud's instance metadata service",
     "https://www.tencentcloud.com/document/product/213/4934"},
    {"169.254.42.42", "Scaleway's instance metadata service",
     "https://www.scaleway.com/en/docs/instances/how-to/use-instance-metadata/"},
    {"fd00:42::42", "Scaleway's instance metadata service over IPv6",
     "https://www.scaleway.com/en/docs/instances/how-to/use-instance-metadata/"},
};

}  // namespace

const std::vector<MetadataAddress>& metadata_addresses() {
  static const std::vector<MetadataAddress> all(std::begin(kAddresses), std::end(kAddresses));
  return all;
}

const MetadataAddress* metadata_address_of(const IpAddress& a) {
  static const std::vector<IpAddress> parsed = [] {
    std::vector<IpAddress> v;
    for (const auto& m : kAddresses) v.push_back(IpAddress::parse(m.address).value_or(IpAddress{}));
    return v;
  }();
  for (size_t i = 0; i < parsed.size(); ++i)
    if (parsed[i] == a) return &kAddresses[i];
  return nullptr;
}

}  // namespace cordon

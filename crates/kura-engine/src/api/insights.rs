//! UpdateContributorInsights, DescribeContributorInsights and ListContributorInsights.

use serde::{Deserialize, Serialize};

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateContributorInsightsInput {
    #[serde(default, deserialize_with = "super::table_name_or_arn")]
    pub table_name: Option<String>,
    pub index_name: Option<String>,
    pub contributor_insights_action: Option<String>,
    pub contributor_insights_mode: Option<String>,
}

/// UpdateContributorInsights answers the same four members as a list entry.
pub type UpdateContributorInsightsOutput = ContributorInsightsSummary;

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeContributorInsightsInput {
    #[serde(default, deserialize_with = "super::table_name_or_arn")]
    pub table_name: Option<String>,
    pub index_name: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeContributorInsightsOutput {
    pub table_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_name: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub contributor_insights_rule_list: Vec<String>,
    pub contributor_insights_status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_update_date_time: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contributor_insights_mode: Option<&'static str>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListContributorInsightsInput {
    #[serde(default, deserialize_with = "super::table_name_or_arn")]
    pub table_name: Option<String>,
    pub next_token: Option<String>,
    pub max_results: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ContributorInsightsSummary {
    pub table_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_name: Option<String>,
    pub contributor_insights_status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contributor_insights_mode: Option<&'static str>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListContributorInsightsOutput {
    pub contributor_insights_summaries: Vec<ContributorInsightsSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

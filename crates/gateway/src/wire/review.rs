//! Review submission for bank-transfer orders (`/submit/transferOrder`).

use serde::{Deserialize, Serialize};

use super::{Generation, HeaderSpec, MerNo, NoData, Operation};
use crate::validate::{self as v, FieldError};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InfoItem {
    pub info_type: String,
    pub info_content: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileItem {
    pub file_type: String,
    /// Standard base64 of the file's bytes.
    pub file_content: String,
    pub file_name: String,
    /// With its leading dot, e.g. `.png`.
    pub suffix: String,
}

/// Operation 10: `POST /submit/transferOrder`, review information and files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct V1TransferOrderSubmit {
    pub mer_no: MerNo,
    pub trade_no: String,
    #[serde(default)]
    pub info_list: Vec<InfoItem>,
    #[serde(default)]
    pub file_list: Vec<FileItem>,
}

impl Operation for V1TransferOrderSubmit {
    type Output = NoData;
    const NAME: &'static str = "v1.submit.transferOrder";
    const PATH: &'static str = "/submit/transferOrder";
    const GENERATION: Generation = Generation::V1;
    const MOVES_MONEY: bool = true;

    fn headers(&self) -> HeaderSpec {
        HeaderSpec::PLAIN
    }

    fn validate(&self) -> Result<(), FieldError> {
        v::order_no("tradeNo", &self.trade_no)?;
        if self.info_list.is_empty() && self.file_list.is_empty() {
            return Err(FieldError::new(
                "infoList",
                "at least one information item or file is required",
            ));
        }
        for (i, item) in self.info_list.iter().enumerate() {
            v::required(&format!("infoList[{i}].infoType"), &item.info_type)?;
            v::required(&format!("infoList[{i}].infoContent"), &item.info_content)?;
        }
        for (i, f) in self.file_list.iter().enumerate() {
            v::required(&format!("fileList[{i}].fileType"), &f.file_type)?;
            v::required(&format!("fileList[{i}].fileName"), &f.file_name)?;
            v::required(&format!("fileList[{i}].fileContent"), &f.file_content)?;
            v::suffix(&format!("fileList[{i}].suffix"), &f.suffix)?;
        }
        Ok(())
    }
}
